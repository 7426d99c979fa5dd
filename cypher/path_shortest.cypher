// Of all shortest paths from source to target along link direction, the one
// whose ID sequence is lexicographically smallest (lists order element by
// element). Source and target must differ.
MATCH (a:Note {project: $project, id: $source}), (b:Note {project: $project, id: $target})
MATCH p = allShortestPaths((a)-[:LINKS_TO*]->(b))
WITH [x IN nodes(p) | x.id] AS ids
RETURN ids
ORDER BY ids
LIMIT 1
