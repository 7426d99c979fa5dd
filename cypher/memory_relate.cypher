// Creates a relation between two memories or replaces its weight. No row
// when either memory is missing; created is true when this call made it.
MATCH (a:Memory {project: $project, id: $from})
MATCH (b:Memory {project: $project, id: $to})
MERGE (a)-[r:MEMORY_RELATION {type: $type}]->(b)
ON CREATE SET r.created_ns = $created_ns, r.nonce = $nonce
SET r.weight = $weight
RETURN r.nonce = $nonce AS created
