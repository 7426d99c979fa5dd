// Titles of the notes that exist among $ids.
UNWIND $ids AS id
MATCH (n:Note {project: $project, id: id})
RETURN n.id AS id, n.title AS title
