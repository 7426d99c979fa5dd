// Records a validation history event and ties it to its memory.
MATCH (m:Memory {project: $project, id: $memory_id})
CREATE (m)-[:HAS_EVENT]->(:MemoryEvent {project: $project, id: $id, memory_id: $memory_id, at_ns: $at_ns, doc: $doc})
