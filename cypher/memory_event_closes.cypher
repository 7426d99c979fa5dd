// The event of a memory that already closes an application (its doc, the
// JSON of core.MemoryEvent, holds "ApplyID":"<apply event id>"), if any.
// Read under the memory's write lock, so an application is closed once.
MATCH (e:MemoryEvent {project: $project, memory_id: $memory_id})
WHERE e.doc CONTAINS $needle
RETURN e.id AS id
LIMIT 1
