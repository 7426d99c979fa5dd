// Notes linking to id, by ID.
MATCH (:Note {project: $project, id: $id})<-[:LINKS_TO]-(n:Note)
WITH n ORDER BY n.id LIMIT $limit
RETURN n.id AS id, [n.doc, n.content] AS doc, n.targets AS targets, 'in' AS direction
