// Every memory ID of the project, and whether the filter selects it: the
// keyword search brings its in-process index of contents in line with the
// IDs (adding new memories, dropping deleted ones) and keeps the selected.
MATCH (m:Memory {project: $project})
RETURN m.id AS id,
       ((size($namespaces) = 0 OR m.namespace IN $namespaces)
        AND ($type = '' OR m.type = $type)
        AND m.importance >= $min_importance AND m.confidence >= $min_confidence) AS selected
