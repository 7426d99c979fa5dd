// Deletes up to $batch of a project's changes beyond its newest $keep.
MATCH (c:NoteChange {project: $project})
WITH c ORDER BY c.key DESC
SKIP $keep LIMIT $batch
DELETE c
RETURN count(*) AS deleted
