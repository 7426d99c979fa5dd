// The project's change counter (0 before its first write) and its count of
// staged writes still drawing links (write_degrees_pending): what a full
// load of the note catalog reads first (neo4jstore/catalog.go).
OPTIONAL MATCH (g:GraphMeta {project: $project})
RETURN coalesce(g.version, 0) AS version, coalesce(g.degreesPending, 0) AS pending
