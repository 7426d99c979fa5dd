// Searches compare only vectors of the query's model; re-embedding after a
// model change looks for chunks of another one.
CREATE INDEX chunk_model IF NOT EXISTS
FOR (c:Chunk) ON (c.project, c.model)
