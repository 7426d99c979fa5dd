// Keyword search through chunk_fulltext. $query holds only lower-case
// words (the store builds it from the user's text; no Lucene syntax can
// reach the parser). The $k best chunks of every project are fetched,
// this project's chunks matching the filters kept, and Lucene's scores
// divided by the best one, so the top hit scores 1.
CALL db.index.fulltext.queryNodes('chunk_fulltext', $query, {limit: $k}) YIELD node AS c, score
WHERE c.project = $project
  AND ($namespace = '' OR c.namespace = $namespace)
  AND ($doc_type = '' OR c.doc_type = $doc_type)
  AND ($source = '' OR c.source_file = $source)
WITH c, score ORDER BY score DESC, c.id ASC LIMIT $limit
WITH collect([c, score]) AS rows
WITH rows, CASE WHEN size(rows) = 0 THEN 1.0 ELSE rows[0][1] END AS best
UNWIND rows AS row
WITH row[0] AS c, row[1] / best AS score
RETURN c.id AS id, c.source_file AS source_file, c.namespace AS namespace, c.doc_type AS doc_type,
       c.idx AS idx, c.content AS content, c.header_path AS header_path, c.page AS page,
       c.file_hash AS file_hash, c.note_id AS note_id, c.model AS model, c.indexed_at AS indexed_at,
       score
ORDER BY score DESC, id ASC
