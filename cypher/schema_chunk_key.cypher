// A document chunk is identified by its project and ID; the constraint's
// index serves delete_chunks and the ID tie-break of searches.
CREATE CONSTRAINT chunk_key IF NOT EXISTS
FOR (c:Chunk) REQUIRE (c.project, c.id) IS UNIQUE
