// The contents of memories by ID, for the in-process keyword index.
UNWIND $ids AS id
MATCH (m:Memory {project: $project, id: id})
RETURN m.id AS id, m.content AS content
