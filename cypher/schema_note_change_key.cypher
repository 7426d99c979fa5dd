// A note change (recent_changes' log) is identified by its project and key;
// the constraint's index also serves the log's pages, newest key first.
CREATE CONSTRAINT note_change_key IF NOT EXISTS
FOR (c:NoteChange) REQUIRE (c.project, c.key) IS UNIQUE
