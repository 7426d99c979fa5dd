// Drops the vector index before it is created again with another dimension.
DROP INDEX note_embedding IF EXISTS
