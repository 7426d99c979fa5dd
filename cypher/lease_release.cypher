// Gives the lease $name of a project back, if $holder holds it
// (neo4jstore/lease.go); another process may take it at once.
MATCH (l:Lease {project: $project, name: $name, holder: $holder})
DELETE l
