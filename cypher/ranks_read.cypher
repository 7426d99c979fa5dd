// A project's stored PageRank ranking (neo4jstore/ranks.go): the change
// counter, the ranking's counter (null: none), its age in ms, and its first
// $fetch entries as [position, id, title, score], titles current, notes
// deleted since the ranking left out (order: by position).
OPTIONAL MATCH (g:GraphMeta {project: $project})
OPTIONAL MATCH (r:GraphRank {project: $project})
RETURN coalesce(g.version, 0) AS version, r.version AS ranked, timestamp() - r.computedAt AS age_ms, COLLECT {
  UNWIND range(0, size(coalesce(r.ids, [])[0..$fetch]) - 1) AS i
  MATCH (n:Note {project: $project, id: r.ids[i]})
  RETURN [i, n.id, n.title, r.scores[i]]
} AS hubs
