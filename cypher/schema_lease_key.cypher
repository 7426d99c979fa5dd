// One lease per (project, name) (neo4jstore/lease.go): the key's lock is
// what lets one process of many take it.
CREATE CONSTRAINT lease_key IF NOT EXISTS
FOR (l:Lease) REQUIRE (l.project, l.name) IS UNIQUE
