// Identical content is stored once per namespace: memory_put MERGEs on this
// key, and the constraint makes two concurrent stores of one content one
// memory.
CREATE CONSTRAINT memory_content IF NOT EXISTS
FOR (m:Memory) REQUIRE (m.project, m.namespace, m.content_hash) IS UNIQUE
