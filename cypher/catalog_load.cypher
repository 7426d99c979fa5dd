// Every note ID of the project in ID order with its title and normalised
// tags, and the project's change counter read first (neo4jstore/catalog.go):
// a write that commits during the scan bumps the counter past the one
// returned, so the catalog built from these rows is replaced at its next
// check.
OPTIONAL MATCH (g:GraphMeta {project: $project})
WITH coalesce(g.version, 0) AS version
MATCH (n:Note {project: $project})
WHERE n.id IS NOT NULL
WITH version, n ORDER BY n.project, n.id
RETURN version, n.id AS id, n.tagsNorm AS tags, n.title AS title
