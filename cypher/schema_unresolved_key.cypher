// One ghost node per unresolved link key of a project; MERGE relies on it.
CREATE CONSTRAINT unresolved_key IF NOT EXISTS
FOR (u:Unresolved) REQUIRE (u.project, u.key) IS UNIQUE
