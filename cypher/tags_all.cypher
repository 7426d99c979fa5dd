// Notes carrying all of $tags (normalised), each itself or a tag nested
// under it (core.TagMatches), by ID, read in (project, id) index order as
// in tags_any.
MATCH (n:Note {project: $project})
WHERE n.id IS NOT NULL AND all(w IN $tags WHERE any(t IN n.tagsNorm WHERE t = w OR t STARTS WITH w + '/'))
WITH n ORDER BY n.project, n.id LIMIT $limit
RETURN n.id AS id, [n.doc, n.content] AS doc, n.targets AS targets,
       [(n)-[:LINKS_TO]->(t:Note) | [t.id, t.title]] AS titles
