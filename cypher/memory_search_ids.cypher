// The IDs of the memories a filter selects whose vector $model made. The
// store ranks them in process from vectors it caches by ID (a memory's
// vector never changes), so a search does not read 10,000 embedding arrays
// from the store.
MATCH (m:Memory {project: $project})
WHERE m.model = $model
  AND (size($namespaces) = 0 OR m.namespace IN $namespaces)
  AND ($type = '' OR m.type = $type)
  AND m.importance >= $min_importance AND m.confidence >= $min_confidence
RETURN m.id AS id
