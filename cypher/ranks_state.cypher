// Where a project's stored PageRank stands (neo4jstore/ranks.go): the
// change counter, the stored ranking's counter (null: none) and how long
// its computation took, the time since the last write, and the time since
// the first write the ranking misses (null when the log no longer holds
// it). Times are the server's clock, in ms.
OPTIONAL MATCH (g:GraphMeta {project: $project})
OPTIONAL MATCH (r:GraphRank {project: $project})
OPTIONAL MATCH (c:GraphChange {project: $project, version: coalesce(r.version, 0) + 1})
RETURN coalesce(g.version, 0) AS version, r.version AS ranked, coalesce(r.took_ms, 0) AS took_ms,
       timestamp() - coalesce(g.changedAt, 0) AS quiet_ms, timestamp() - c.at AS behind_ms
