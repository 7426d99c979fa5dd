// The shortest paths from source to target along link direction, as ID
// lists, at most $limit of them (in no particular order). The caller keeps
// the lexicographically smallest when fewer than $limit came back; when
// $limit came back there may be more (tied paths multiply: 1,790 for one
// pair of obsidian-hub), and it asks path_walk instead, which finds the
// smallest without enumerating them. The LIMIT stops allShortestPaths'
// enumeration (PROFILE, 1.68 M tied paths: 9.2 s whole, 0.57 s to the
// 65th). Source and target must differ.
MATCH (a:Note {project: $project, id: $source}), (b:Note {project: $project, id: $target})
MATCH p = allShortestPaths((a)-[:LINKS_TO*]->(b))
WITH p LIMIT $limit
RETURN collect([x IN nodes(p) | x.id]) AS paths
