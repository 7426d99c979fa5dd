// Deletes every chunk of the project (never a memory or a note).
MATCH (c:Chunk {project: $project})
DETACH DELETE c
RETURN count(*) AS n
