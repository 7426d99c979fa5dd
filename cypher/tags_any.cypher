// Notes carrying any of $tags (normalised) or a tag nested under one
// ("go/lang" for "go", core.TagMatches), by ID: the (project, id) index
// is read in order and filtered until $limit notes match. ORDER BY names
// both index properties so that the planner takes the order from the index
// instead of sorting the project.
MATCH (n:Note {project: $project})
WHERE n.id IS NOT NULL AND any(t IN n.tagsNorm WHERE any(w IN $tags WHERE t = w OR t STARTS WITH w + '/'))
WITH n ORDER BY n.project, n.id LIMIT $limit
RETURN n.id AS id, [n.doc, n.content] AS doc, n.targets AS targets,
       [(n)-[:LINKS_TO]->(t:Note) | [t.id, t.title]] AS titles
