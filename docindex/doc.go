// Package docindex is the document index of spec 004: it reads files from
// allowed roots only, cuts them into chunks (package chunk), embeds them
// (core.Embedder) and keeps them in a core.ChunkStore; it answers semantic
// searches with filters and token budgets, and manages the index.
//
// Rules it keeps:
//   - Paths: a relative path is resolved against the first allowed root
//     (the vault). A path is read only when, cleaned, it lies inside an
//     allowed root; anything else is refused with ErrNotAllowed before the
//     file system is asked whether it exists, so the answer never tells a
//     client what exists outside the roots. The path is then resolved
//     through an os.Root handle of its root, link by link (a link leading
//     out is refused), and the file read through the handle is checked to
//     be the one resolved: no read leaves the roots, whatever is swapped
//     meanwhile (paths.go). A link inside the roots names its file: chunks
//     are kept under the file's real path.
//   - Empty files (no bytes, or no text to chunk) are refused with
//     ErrEmpty.
//   - Deduplication: a file whose SHA-256 and namespace equal those of its
//     indexed chunks is skipped; a changed file replaces its chunks in one
//     store write, so a search never sees half of either version.
//   - Chunk IDs are "chunk_" plus 16 hex digits of SHA-256(project, file,
//     file hash, chunk index): indexing the same bytes gives the same IDs.
//   - Embedding: the text embedded is the chunk's header path, a newline,
//     then its content, so a section's titles count in its meaning. Chunks
//     embedded by another model than the current one are embedded again
//     before the first search or index call of a process.
//   - Tokens: EstimateTokens(text) = ceil(characters / 4), the usual
//     rule of thumb for English with GPT-style tokenizers; a budget counts
//     the content of each result.
package docindex
