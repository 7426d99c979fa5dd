// The embeddings $model made of memories, by ID, for the store's vector
// cache.
UNWIND $ids AS id
MATCH (m:Memory {project: $project, id: id})
WHERE m.model = $model
RETURN m.id AS id, m.embedding AS embedding
