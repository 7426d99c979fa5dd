// Records an access of each memory (memory_recall).
UNWIND $ids AS id
MATCH (m:Memory {project: $project, id: id})
SET m.last_accessed_ns = $at_ns, m.access_count = coalesce(m.access_count, 0) + 1
