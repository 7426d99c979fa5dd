// Creates or replaces the record of project $id (list_projects).
MERGE (p:Project {id: $id})
SET p.project = $key,
    p.name = $name,
    p.slug = $slug,
    p.description = $description,
    p.createdAt = $createdAt,
    p.updatedAt = $updatedAt
