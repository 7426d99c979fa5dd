// Of all shortest paths from source to target along link direction, the one
// whose ID sequence is lexicographically smallest (element by element),
// without enumerating tied paths: shortestPath gives the length d; then,
// from the source, step i takes the smallest-ID note the current one links
// to that is exactly d - i links from the target (a shortestPath of its
// own), the greedy argument of memstore/path.go. Each step costs a
// shortestPath per link of the note it leaves (PROFILE, 10k vault: 12k to
// 81k db hits against 160 to 1,772 for path_shortest on the same pairs),
// so ShortestPath asks it only when path_shortest found too many tied
// paths. Source and target must differ. A null in ids means a concurrent
// write removed a link the walk relied on.
MATCH (a:Note {project: $project, id: $source}), (b:Note {project: $project, id: $target})
MATCH p = shortestPath((a)-[:LINKS_TO*]->(b))
WITH a, b, length(p) AS d
RETURN [x IN reduce(path = [a], i IN range(1, d - 1) |
  path + [cur IN [last(path)] | COLLECT {
    MATCH (cur)-[:LINKS_TO]->(n:Note)
    WHERE CASE WHEN n = b THEN false
          ELSE EXISTS { MATCH q = shortestPath((n)-[:LINKS_TO*]->(b)) WITH q WHERE length(q) = d - i } END
    RETURN n ORDER BY n.id LIMIT 1
  }[0]]) + [b] | x.id] AS ids
