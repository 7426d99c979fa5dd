// Deletes every relation touching $from, in either direction, of $type
// ('' for every type).
MATCH (:Memory {project: $project, id: $from})-[r:MEMORY_RELATION]-(:Memory)
WHERE $type = '' OR r.type = $type
DELETE r
RETURN count(*) AS n
