// Deletes memories with their history and relations; one row per memory
// that existed.
UNWIND $ids AS id
MATCH (m:Memory {project: $project, id: id})
CALL (m) {
  MATCH (e:MemoryEvent {project: m.project, memory_id: m.id})
  DETACH DELETE e
}
DETACH DELETE m
RETURN id
