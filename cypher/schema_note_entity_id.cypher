// Backs the entity lookups of spec 003 (get_entity, the duplicate-ID check
// of every entity query): an index seek on (project, entityId).
CREATE RANGE INDEX note_entity_id IF NOT EXISTS
FOR (n:Note) ON (n.project, n.entityId)
