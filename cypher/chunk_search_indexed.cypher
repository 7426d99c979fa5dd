// Vector search through the chunk_embedding index: the $k nearest chunks
// of every project (approximate), then this project's chunks of $model
// matching the filters, scored exactly (the index's own scores are
// approximate, and ties must order by ID as in the exact scan). seen is
// how many nodes the index gave: fewer than $k means it held no more, so
// the answer is complete even when short.
CALL db.index.vector.queryNodes('chunk_embedding', $k, $vector) YIELD node, score
WITH collect([node, score]) AS found
WITH size(found) AS seen, found
UNWIND found AS pair
WITH seen, pair[0] AS c
WHERE c.project = $project AND c.model = $model
  AND ($namespace = '' OR c.namespace = $namespace)
  AND ($doc_type = '' OR c.doc_type = $doc_type)
  AND ($source = '' OR c.source_file = $source)
WITH seen, c, 2 * vector.similarity.cosine(c.embedding, $vector) - 1 AS cos
WITH seen, c, CASE WHEN cos < 0 THEN 0.0 WHEN cos > 1 THEN 1.0 ELSE cos END AS score
ORDER BY score DESC, c.id ASC
LIMIT $limit
RETURN c.id AS id, c.source_file AS source_file, c.namespace AS namespace, c.doc_type AS doc_type,
       c.idx AS idx, c.content AS content, c.header_path AS header_path, c.page AS page,
       c.file_hash AS file_hash, c.note_id AS note_id, c.model AS model, c.indexed_at AS indexed_at,
       score, seen
