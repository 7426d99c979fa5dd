// Chunks are replaced, described and deleted by source file.
CREATE INDEX chunk_source IF NOT EXISTS
FOR (c:Chunk) ON (c.project, c.source_file)
