// Top notes by stored in-degree, read in order from the (project, inDegree)
// index backwards, so only the top rows (and their ties) are touched. The
// planner uses a composite index only with a predicate on each property
// ("IS NOT NULL" always holds) and provides its order only when ORDER BY
// names every index property, hence the constant n.project.
MATCH (n:Note {project: $project})
WHERE n.inDegree IS NOT NULL
RETURN n.id AS id, n.title AS title, n.inDegree AS score
ORDER BY n.project DESC, n.inDegree DESC, n.id ASC
LIMIT $limit
