// Deletes ghost nodes that no note links to any more.
UNWIND $keys AS key
MATCH (u:Unresolved {project: $project, key: key})
WHERE NOT EXISTS { (u)<-[:DANGLING]-() }
DELETE u
