// The newest $limit events of one memory ($memory_id) or of all ('').
MATCH (e:MemoryEvent {project: $project})
WHERE $memory_id = '' OR e.memory_id = $memory_id
RETURN e.doc AS doc
ORDER BY e.at_ns DESC, e.id DESC
LIMIT $limit
