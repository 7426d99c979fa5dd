// Exact vector search over the chunks of one model, filtered. Neo4j's
// cosine similarity is (1 + cos) / 2; the score returned is cos clamped to
// [0, 1], as in the embedded store, so both stores rank and score alike.
MATCH (c:Chunk {project: $project, model: $model})
WHERE ($namespace = '' OR c.namespace = $namespace)
  AND ($doc_type = '' OR c.doc_type = $doc_type)
  AND ($source = '' OR c.source_file = $source)
  AND size(c.embedding) = size($vector)
WITH c, 2 * vector.similarity.cosine(c.embedding, $vector) - 1 AS cos
WITH c, CASE WHEN cos < 0 THEN 0.0 WHEN cos > 1 THEN 1.0 ELSE cos END AS score
ORDER BY score DESC, c.id ASC
LIMIT $limit
RETURN c.id AS id, c.source_file AS source_file, c.namespace AS namespace, c.doc_type AS doc_type,
       c.idx AS idx, c.content AS content, c.header_path AS header_path, c.page AS page,
       c.file_hash AS file_hash, c.note_id AS note_id, c.model AS model, c.indexed_at AS indexed_at,
       score
