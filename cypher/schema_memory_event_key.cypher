// A validation history event is identified by its project and ID.
CREATE CONSTRAINT memory_event_key IF NOT EXISTS
FOR (e:MemoryEvent) REQUIRE (e.project, e.id) IS UNIQUE
