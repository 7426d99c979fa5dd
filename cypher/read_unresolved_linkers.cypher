// Notes holding an unresolved link with one of $keys, by ID.
UNWIND $keys AS key
MATCH (:Unresolved {project: $project, key: key})<-[:DANGLING]-(n:Note)
RETURN DISTINCT n.id AS id
ORDER BY id
