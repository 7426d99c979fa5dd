// Deletes notes with their relationships. One row per deleted note, with the
// surviving notes it linked to (their in-degree must be recounted) and the
// ghost keys it hung on (the ghost may now be an orphan). The notes its
// targets list names are recounted too, which costs little and keeps the
// counts right whatever stage a staged write (neo4jstore/staged.go) was cut
// off in.
UNWIND $ids AS id
MATCH (d:Note {project: $project, id: id})
WITH d,
     COLLECT { MATCH (d)-[:LINKS_TO]->(t:Note) WHERE NOT t.id IN $ids RETURN t.id }
       + [t IN coalesce(d.targets[1..], []) WHERE t <> '' AND NOT t IN $ids] AS targets,
     COLLECT { MATCH (d)-[:DANGLING]->(u:Unresolved) RETURN u.key } AS keys
DETACH DELETE d
RETURN targets, keys
