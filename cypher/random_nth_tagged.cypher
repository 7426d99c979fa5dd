// The note at index $skip in ID order among those carrying any of $tags
// or a tag nested under one (core.TagMatches), read in (project, id)
// index order as in random_nth.
MATCH (n:Note {project: $project})
WHERE n.id IS NOT NULL AND NOT any(e IN $files WHERE toLower(n.id) ENDS WITH e)
      AND any(t IN n.tagsNorm WHERE any(w IN $tags WHERE t = w OR t STARTS WITH w + '/'))
WITH n ORDER BY n.project, n.id SKIP $skip LIMIT 1
RETURN n.id AS id, [n.doc, n.content] AS doc, n.targets AS targets,
       [(n)-[:LINKS_TO]->(t:Note) | [t.id, t.title]] AS titles
