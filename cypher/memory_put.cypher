// Stores a memory unless its namespace holds the same content. The MERGE
// key is the memory_content constraint, so the check and the create are
// atomic; created is true when this call made the node.
MERGE (m:Memory {project: $project, namespace: $namespace, content_hash: $content_hash})
ON CREATE SET m += $props
RETURN m.id = $props.id AS created,
       m.id AS id, m.content AS content, m.content_hash AS content_hash, m.namespace AS namespace,
       m.model AS model, m.created_ns AS created_ns, m.last_accessed_ns AS last_accessed_ns,
       m.access_count AS access_count, m.state AS state, m.embedding AS embedding
