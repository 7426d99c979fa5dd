// Every project record, by ID.
MATCH (p:Project)
RETURN p.project AS key, p.id AS id, p.name AS name, p.slug AS slug,
       p.description AS description, p.createdAt AS createdAt, p.updatedAt AS updatedAt,
       p.host AS host, p.path AS path
ORDER BY p.id
