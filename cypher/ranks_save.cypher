// Saves a project's PageRank ranking computed at change counter $version
// (neo4jstore/ranks.go): its top notes and scores in order, how many notes
// it ranked and how long it took. A ranking of a newer counter is kept.
MERGE (r:GraphRank {project: $project})
WITH r
WHERE coalesce(r.version, -1) < $version
SET r.version = $version, r.computedAt = timestamp(), r.took_ms = $took_ms,
    r.notes = $notes, r.ids = $ids, r.scores = $scores
