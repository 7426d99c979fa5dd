// A note is identified by its project and ID; the constraint's index also
// serves every lookup by ID and every ORDER BY n.id within a project.
CREATE CONSTRAINT note_key IF NOT EXISTS
FOR (n:Note) REQUIRE (n.project, n.id) IS UNIQUE
