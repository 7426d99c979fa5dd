// The project's change counter (0 before its first write).
OPTIONAL MATCH (g:GraphMeta {project: $project})
RETURN coalesce(g.version, 0) AS version
