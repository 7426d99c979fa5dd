// Chunks embedded by another model than $model, by ID: to embed again.
MATCH (c:Chunk {project: $project})
WHERE c.model <> $model
WITH c ORDER BY c.id
LIMIT $limit
RETURN c.id AS id, c.source_file AS source_file, c.namespace AS namespace, c.doc_type AS doc_type,
       c.idx AS idx, c.content AS content, c.header_path AS header_path, c.page AS page,
       c.file_hash AS file_hash, c.note_id AS note_id, c.model AS model, c.indexed_at AS indexed_at,
       0.0 AS score
