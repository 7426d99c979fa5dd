// Notes by ID in the order asked; missing IDs give no row.
UNWIND range(0, size($ids) - 1) AS i
MATCH (n:Note {project: $project, id: $ids[i]})
RETURN n.id AS id, [n.doc, n.content] AS doc, n.targets AS targets
ORDER BY i
