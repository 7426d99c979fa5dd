// Every note ID of a project with its content hash.
MATCH (n:Note {project: $project})
WHERE n.id IS NOT NULL
RETURN n.id AS id, n.hash AS hash
