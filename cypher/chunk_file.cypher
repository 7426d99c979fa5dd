// Describes the chunks of one source file: hash, namespace and count.
MATCH (c:Chunk {project: $project, source_file: $source})
RETURN head(collect(c.file_hash)) AS hash, head(collect(c.namespace)) AS namespace, count(c) AS n
