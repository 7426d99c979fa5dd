// The project's count of staged writes whose in-degree recount is
// outstanding (see write_degrees_pending).
OPTIONAL MATCH (g:GraphMeta {project: $project})
RETURN coalesce(g.degreesPending, 0) AS pending
