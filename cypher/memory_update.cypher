// Writes the mutable state of a memory locked by memory_lock.
MATCH (m:Memory {project: $project, id: $id})
SET m += $props
REMOVE m._lock
