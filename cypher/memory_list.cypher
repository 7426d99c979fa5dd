// One page of the memories a filter selects. $order picks the sort key and
// $sign its direction (every key is a number: times are nanoseconds);
// ties go by ID so that pages do not overlap.
MATCH (m:Memory {project: $project})
WHERE (size($namespaces) = 0 OR m.namespace IN $namespaces)
  AND ($type = '' OR m.type = $type)
  AND m.importance >= $min_importance AND m.confidence >= $min_confidence
WITH m, CASE $order
          WHEN 'updated_at' THEN m.updated_ns
          WHEN 'last_accessed' THEN m.last_accessed_ns
          WHEN 'confidence' THEN m.confidence
          WHEN 'importance' THEN m.importance
          ELSE m.created_ns
        END * $sign AS key
ORDER BY key, m.id
SKIP $skip LIMIT $limit
RETURN m.id AS id, m.content AS content, m.content_hash AS content_hash, m.namespace AS namespace,
       m.model AS model, m.created_ns AS created_ns, m.last_accessed_ns AS last_accessed_ns,
       m.access_count AS access_count, m.state AS state, m.embedding AS embedding
