// Deletes the relations from -> to of $type ('' for every type).
MATCH (:Memory {project: $project, id: $from})-[r:MEMORY_RELATION]->(:Memory {project: $project, id: $to})
WHERE $type = '' OR r.type = $type
DELETE r
RETURN count(*) AS n
