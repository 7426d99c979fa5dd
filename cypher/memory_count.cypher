// How many memories a filter selects.
MATCH (m:Memory {project: $project})
WHERE (size($namespaces) = 0 OR m.namespace IN $namespaces)
  AND ($type = '' OR m.type = $type)
  AND m.importance >= $min_importance AND m.confidence >= $min_confidence
RETURN count(m) AS n
