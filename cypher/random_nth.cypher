// The note at index $skip in ID order among the notes (not attachments or
// canvases, see random_count): the (project, id) index is read in order
// (ORDER BY names both its properties, see tags_any) and skipped through,
// without sorting or loading notes.
MATCH (n:Note {project: $project})
WHERE n.id IS NOT NULL AND NOT any(e IN $files WHERE toLower(n.id) ENDS WITH e)
WITH n ORDER BY n.project, n.id SKIP $skip LIMIT 1
RETURN n.id AS id, [n.doc, n.content] AS doc, n.targets AS targets,
       [(n)-[:LINKS_TO]->(t:Note) | [t.id, t.title]] AS titles
