// Every note of a project with the notes it links to, for PageRank
// (neo4jstore/ranks.go): the resolved targets of its links ("" for an
// unresolved one) from the note's targets list, one property per note
// instead of a walk of its relationships.
MATCH (n:Note {project: $project})
WHERE n.id IS NOT NULL
RETURN n.id AS id, n.targets[1..] AS targets
