// Deletes chunks by ID; returns the IDs that existed.
UNWIND $ids AS id
MATCH (c:Chunk {project: $project, id: id})
DETACH DELETE c
RETURN collect(id) AS ids
