// Memories by ID, in the order of $ids; missing ones are left out.
UNWIND $ids AS id
MATCH (m:Memory {project: $project, id: id})
RETURN m.id AS id, m.content AS content, m.content_hash AS content_hash, m.namespace AS namespace,
       m.model AS model, m.created_ns AS created_ns, m.last_accessed_ns AS last_accessed_ns,
       m.access_count AS access_count, m.state AS state, m.embedding AS embedding
