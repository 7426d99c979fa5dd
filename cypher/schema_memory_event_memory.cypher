// The history of one memory, and the events to delete with it.
CREATE INDEX memory_event_memory IF NOT EXISTS
FOR (e:MemoryEvent) ON (e.project, e.memory_id)
