// Notes carrying any of $tags (normalised), by ID: the (project, id) index
// is read in order and filtered until $limit notes match. ORDER BY names
// both index properties so that the planner takes the order from the index
// instead of sorting the project.
MATCH (n:Note {project: $project})
WHERE n.id IS NOT NULL AND any(t IN n.tagsNorm WHERE t IN $tags)
WITH n ORDER BY n.project, n.id LIMIT $limit
RETURN n.id AS id, n.doc AS doc, n.targets AS targets,
       [(n)-[:LINKS_TO]->(t:Note) | [t.id, t.title]] AS titles
