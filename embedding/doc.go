// Package embedding provides vaultgraph's core.Embedder implementations and
// the factory cmd uses to pick one from configuration:
//
//   - "builtin" (the default): a static model distilled from
//     all-MiniLM-L6-v2 and compiled into the binary (package
//     embedding/builtin); no network, no service;
//   - "ollama": an Ollama server's /api/embed;
//   - "openai": any OpenAI-compatible /v1/embeddings endpoint (OpenAI, LM
//     Studio, vLLM, Hugging Face TEI, ...);
//   - "none": no embedder, so no semantic search.
//
// The remote providers batch texts, time out each request, retry network
// errors, 429 and 5xx answers with exponential backoff and jitter (honouring
// Retry-After), learn the vector dimension from the first answer unless it
// is configured, and report failures as *core.ProviderError naming the URL
// and model. The API key is sent only in the Authorization header and never
// appears in errors or logs.
//
// Sub-packages: wordpiece (BERT tokenizer), builtin (the offline model),
// keyword (a BM25 index) and hybrid (fusion of vector and keyword rankings).
package embedding
