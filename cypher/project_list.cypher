// Every project record, by ID.
MATCH (p:Project)
RETURN p.project AS key, p.id AS id, p.name AS name, p.slug AS slug,
       p.description AS description, p.createdAt AS createdAt, p.updatedAt AS updatedAt
ORDER BY p.id
