// Top notes by stored out-degree, read in order from the (project,
// outDegree) index backwards; see hubs_in_degree for why the statement
// is shaped this way.
MATCH (n:Note {project: $project})
WHERE n.outDegree IS NOT NULL
RETURN n.id AS id, n.title AS title, n.outDegree AS score
ORDER BY n.project DESC, n.outDegree DESC, n.id ASC
LIMIT $limit
