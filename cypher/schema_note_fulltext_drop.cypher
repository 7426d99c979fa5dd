// Migration 5 replaces the note fulltext index of migration 3 with an
// eventually consistent one (schema_note_fulltext_async).
DROP INDEX note_fulltext IF EXISTS
