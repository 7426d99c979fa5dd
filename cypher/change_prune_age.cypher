// Deletes up to $batch changes of a project whose key (a zero-padded time)
// is below $below: the changes older than the log keeps.
MATCH (c:NoteChange {project: $project})
WHERE c.key < $below
WITH c LIMIT $batch
DELETE c
RETURN count(*) AS deleted
