// Describes the chunks of one source file: hash, namespace and chunk IDs
// by chunk index.
MATCH (c:Chunk {project: $project, source_file: $source})
WITH c ORDER BY c.idx, c.id
RETURN head(collect(c.file_hash)) AS hash, head(collect(c.namespace)) AS namespace, collect(c.id) AS ids
