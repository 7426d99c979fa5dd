// Every relation with an end among $ids.
UNWIND $ids AS id
MATCH (:Memory {project: $project, id: id})-[r:MEMORY_RELATION]-(:Memory)
WITH DISTINCT r
WITH startNode(r) AS a, r, endNode(r) AS b
RETURN a.id AS from, b.id AS to, r.type AS type, r.weight AS weight, r.created_ns AS created_ns
ORDER BY from, to, type
