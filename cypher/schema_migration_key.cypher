// A migration is recorded once, however many processes start together.
CREATE CONSTRAINT schema_migration_key IF NOT EXISTS
FOR (m:SchemaMigration) REQUIRE m.version IS UNIQUE
