// Every note of a project with its title and the distinct notes it links to:
// the whole graph in one query, for PageRank.
MATCH (n:Note {project: $project})
WHERE n.id IS NOT NULL
RETURN n.id AS id, n.title AS title, [(n)-[:LINKS_TO]->(m) | m.id] AS targets
