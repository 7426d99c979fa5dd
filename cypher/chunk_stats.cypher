// Counts the project's chunks and lists their sources and namespaces.
MATCH (c:Chunk {project: $project})
RETURN count(c) AS n, collect(DISTINCT c.source_file) AS sources, collect(DISTINCT c.namespace) AS namespaces
