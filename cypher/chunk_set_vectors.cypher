// Stores new vectors of $model for existing chunks.
UNWIND $rows AS row
MATCH (c:Chunk {project: $project, id: row.id})
SET c.embedding = row.embedding, c.model = $model
RETURN count(c) AS n
