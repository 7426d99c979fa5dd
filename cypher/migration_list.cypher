// Every applied migration, oldest first.
MATCH (m:SchemaMigration)
RETURN m.version AS version, m.name AS name, m.appliedAt AS appliedAt
ORDER BY m.version
