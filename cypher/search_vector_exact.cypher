// Nearest vectors by an exact scan of the project's notes: used when the
// vector index does not fit the query (another dimension, still populating)
// or over-fetching did not find enough. Scores are (1 + cosine) / 2.
MATCH (n:Note {project: $project})
WHERE n.embeddingModel = $model AND n.embedding IS NOT NULL
  AND size(n.embedding) = size($vector)
WITH n.id AS id, vector.similarity.cosine(n.embedding, $vector) AS score
RETURN id, score
ORDER BY score DESC, id ASC
LIMIT $limit
