// The memories a filter selects whose vector $model made, by cosine
// similarity to $vector. vector.similarity.cosine answers (1 + cos) / 2;
// the store turns it back into cos.
MATCH (m:Memory {project: $project})
WHERE m.model = $model AND size(m.embedding) = size($vector)
  AND (size($namespaces) = 0 OR m.namespace IN $namespaces)
  AND ($type = '' OR m.type = $type)
  AND m.importance >= $min_importance AND m.confidence >= $min_confidence
WITH m, vector.similarity.cosine(m.embedding, $vector) AS similarity
ORDER BY similarity DESC, m.id
LIMIT $limit
RETURN m.id AS id, m.content AS content, m.content_hash AS content_hash, m.namespace AS namespace,
       m.model AS model, m.created_ns AS created_ns, m.last_accessed_ns AS last_accessed_ns,
       m.access_count AS access_count, m.state AS state, m.embedding AS embedding, similarity
