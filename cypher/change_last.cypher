// The newest logged change of one note, from the (project, note) index.
MATCH (c:NoteChange {project: $project, note: $note})
RETURN c.key AS key, c.at_ns AS at_ns, c.kind AS kind, c.note AS note, c.path AS path,
       c.old_note AS old_note, c.old_path AS old_path, c.title AS title, c.hash AS hash,
       c.size_before AS size_before, c.size_after AS size_after,
       c.actor AS actor, c.actor_email AS actor_email, c.actor_name AS actor_name
ORDER BY c.key DESC
LIMIT 1
