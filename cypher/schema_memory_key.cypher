// A memory is identified by its project and ID.
CREATE CONSTRAINT memory_key IF NOT EXISTS
FOR (m:Memory) REQUIRE (m.project, m.id) IS UNIQUE
