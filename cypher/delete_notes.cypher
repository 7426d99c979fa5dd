// Deletes notes with their relationships. One row per deleted note, with the
// surviving notes it linked to (their in-degree must be recounted) and the
// ghost keys it hung on (the ghost may now be an orphan).
UNWIND $ids AS id
MATCH (d:Note {project: $project, id: id})
WITH d,
     COLLECT { MATCH (d)-[:LINKS_TO]->(t:Note) WHERE NOT t.id IN $ids RETURN t.id } AS targets,
     COLLECT { MATCH (d)-[:DANGLING]->(u:Unresolved) RETURN u.key } AS keys
DETACH DELETE d
RETURN targets, keys
