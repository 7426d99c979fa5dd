// Notes of a project without a vector of $model for their current content.
MATCH (n:Note {project: $project})
WHERE n.id IS NOT NULL
  AND (n.embeddingModel IS NULL OR n.embeddingModel <> $model
       OR n.embeddingHash IS NULL OR n.embeddingHash <> n.hash)
RETURN n.id AS id, n.hash AS hash
ORDER BY id
