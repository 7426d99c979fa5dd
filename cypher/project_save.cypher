// Creates or replaces the record of project $id (list_projects); host and
// path say where the vault was last served from, for people.
MERGE (p:Project {id: $id})
SET p.project = $key,
    p.name = $name,
    p.slug = $slug,
    p.description = $description,
    p.host = $host,
    p.path = $path,
    p.createdAt = $createdAt,
    p.updatedAt = $updatedAt
