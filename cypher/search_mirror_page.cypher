// One page of the project's note vectors of $model in ID order, after
// $after: how a process loads its mirror of them (neo4jstore/mirror.go).
MATCH (n:Note)
WHERE n.project = $project AND n.id > $after
  AND n.embeddingModel = $model AND n.embedding IS NOT NULL
RETURN n.id AS id, n.embedding AS embedding
ORDER BY n.id
LIMIT $limit
