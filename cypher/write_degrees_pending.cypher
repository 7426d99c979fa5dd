// Adds $delta to the project's count of staged writes whose in-degree
// recount is outstanding (neo4jstore/staged.go): +1 before a staged write
// draws links, -1 once it has recounted. Above zero with no staged write
// running, a write was cut off, and the next NoteHashes recounts every
// note's degrees.
MERGE (g:GraphMeta {project: $project})
SET g.degreesPending = CASE WHEN coalesce(g.degreesPending, 0) + $delta > 0
                           THEN coalesce(g.degreesPending, 0) + $delta ELSE 0 END
RETURN g.degreesPending AS pending
