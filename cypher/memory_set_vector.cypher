// Replaces a memory's embedding after a change of embedding model.
MATCH (m:Memory {project: $project, id: $id})
SET m.embedding = $embedding, m.model = $model
RETURN m.id AS id
