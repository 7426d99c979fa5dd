// Finds the newest logged change of a note, which a change equal to it
// does not repeat.
CREATE INDEX note_change_note IF NOT EXISTS
FOR (c:NoteChange) ON (c.project, c.note)
