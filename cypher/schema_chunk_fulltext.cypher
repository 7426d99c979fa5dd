// Keyword search over chunks (the other half of hybrid ranking). The
// 'standard' analyzer drops English stop words, as the embedded store's
// BM25 index does, so "and" or "the" never make a chunk match.
CREATE FULLTEXT INDEX chunk_fulltext IF NOT EXISTS
FOR (c:Chunk) ON EACH [c.content, c.header_path]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard'}}
