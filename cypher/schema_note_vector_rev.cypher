// Backs search_mirror_delta: the notes whose vector changed after a
// revision, found by an index seek instead of a scan of the project.
CREATE RANGE INDEX note_vector_rev IF NOT EXISTS
FOR (n:Note) ON (n.project, n.vectorRev)
