package core

import "context"

// StaleNote names a note whose stored vector must be (re)computed: it has
// none, or one computed by another model, or from other content (Hash is
// the note's current content hash).
type StaleNote struct {
	ID   string
	Hash string
}

// NoteVector is the embedding of one note's content.
type NoteVector struct {
	ID string
	// Hash is the content hash of the note the vector was computed from
	// (Note.Hash as read before embedding). A note whose Hash has changed
	// since is stale again, so a write racing the indexer is never lost.
	Hash string
	// Vector is the embedding. Empty, or all zeros (a note with nothing to
	// embed), records that the note was embedded but gives it no vector:
	// VectorSearch never returns it and StaleVectors no longer lists it.
	Vector []float32
}

// SearchStore keeps note embeddings and answers the two halves of hybrid
// search: nearest vectors and keyword relevance.
//
// Every vector is stored with the model that computed it and the content
// hash it was computed from. Vectors of different models are never compared:
// VectorSearch looks only at vectors of the model it is given, so after a
// change of model, search sees the notes re-embedded so far and nothing else
// until StaleVectors runs dry. A note's vector lives and dies with the note:
// DeleteNotes removes it; UpsertNotes with new content keeps the old vector
// (still the same model, and close) until SetNoteVectors replaces it.
//
// Scores are in [0, 1], higher is better; ties are broken by ID ascending.
type SearchStore interface {
	// StaleVectors lists, by ID ascending, every note of the project that has
	// no vector of model recorded for its current content hash.
	StaleVectors(ctx context.Context, project, model string) ([]StaleNote, error)

	// SetNoteVectors records the vectors of model for notes of the project,
	// replacing what they had. Vectors of IDs that are not notes are
	// ignored. All non-empty vectors of a call have one length; a call
	// mixing lengths is an error wrapping ErrInvalidArgument and writes
	// nothing. Vectors need not be normalised.
	SetNoteVectors(ctx context.Context, project, model string, vectors []NoteVector) error

	// VectorSearch returns up to limit notes whose vector of model is
	// closest to vector by cosine similarity, best first; the score is the
	// cosine clamped to [0, 1]. A zero or empty query vector, or one whose
	// length differs from the stored vectors', matches nothing.
	VectorSearch(ctx context.Context, project, model string, vector []float32, limit int) ([]ScoredID, error)

	// KeywordSearch returns up to limit notes whose title or content holds
	// words of query, best first, with a relevance in (0, 1]. The query is
	// plain text: operators and special characters of any query language
	// the store uses are taken literally. A query without words matches
	// nothing.
	KeywordSearch(ctx context.Context, project, query string, limit int) ([]ScoredID, error)
}
