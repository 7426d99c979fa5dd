// Records the vectors of $model for existing notes: the model, content
// hash and vector revision (see search_bump_vector_rev) always, the vector
// (stored as float32, as the vector index reads it) only when the row has
// one.
UNWIND $rows AS row
MATCH (n:Note {project: $project, id: row.id})
SET n.embeddingModel = $model, n.embeddingHash = row.hash, n.vectorRev = $rev
REMOVE n.embedding
WITH n, row
WHERE row.vector IS NOT NULL
CALL db.create.setNodeVectorProperty(n, 'embedding', row.vector)
