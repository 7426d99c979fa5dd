// One note by ID.
MATCH (n:Note {project: $project, id: $id})
RETURN n.id AS id, [n.doc, n.content] AS doc, n.targets AS targets
