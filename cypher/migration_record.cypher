// Records that a migration ran; a second recorder keeps the first time.
MERGE (m:SchemaMigration {version: $version})
ON CREATE SET m.name = $name, m.appliedAt = datetime()
