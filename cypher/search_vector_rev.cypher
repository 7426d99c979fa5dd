// The project's vector revision (see search_bump_vector_rev); rev 0 and
// an empty epoch before its first vector.
OPTIONAL MATCH (m:VectorMeta {project: $project})
RETURN coalesce(m.epoch, '') AS epoch, coalesce(m.rev, 0) AS rev
