// Notes id links to (by ID), then notes linking to id that it does not link
// to (by ID): a note on both sides is listed once, as outgoing.
MATCH (c:Note {project: $project, id: $id})
CALL (c) {
  MATCH (c)-[:LINKS_TO]->(n:Note)
  RETURN n, 0 AS side
  UNION
  MATCH (c)<-[:LINKS_TO]-(n:Note)
  WHERE NOT (c)-[:LINKS_TO]->(n)
  RETURN n, 1 AS side
}
WITH n, side ORDER BY side, n.id LIMIT $limit
RETURN n.id AS id, [n.doc, n.content] AS doc, n.targets AS targets, CASE side WHEN 0 THEN 'out' ELSE 'in' END AS direction
