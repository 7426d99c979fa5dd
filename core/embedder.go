package core

import "context"

// Embedder turns texts into vectors for semantic search. Implementations
// live in package embedding (the built-in offline model, Ollama, any
// OpenAI-compatible service); a deployment without one has no semantic
// search.
//
// Stores keep Model() next to every vector they hold, so that a change of
// model (or of provider) is noticed and the notes are embedded again:
// vectors of two models are never compared.
//
// An Embedder is safe for concurrent use.
type Embedder interface {
	// Name is the provider's name: "builtin", "ollama" or "openai".
	Name() string

	// Model identifies the model, precisely enough that two vectors with
	// the same Model are comparable (the built-in model's id carries its
	// version).
	Model() string

	// Dimension is the length of every vector Embed returns. A remote
	// provider whose dimension was not configured learns it from its first
	// answer and returns 0 until then (embedding.ProbeDimension asks).
	Dimension() int

	// Embed returns one vector per text, in the order of texts, each of
	// length Dimension() and L2-normalised (so a dot product is the cosine
	// similarity). A text with nothing to embed (empty, or only characters
	// the model does not know) gives a zero vector. A failure of a remote
	// service is a *ProviderError naming the URL and model that failed.
	// Embed keeps nothing of texts once it returns: the caller may reuse
	// their memory (semantic.Indexer does).
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}
