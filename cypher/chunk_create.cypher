// Creates the chunks of one file. A chunk of a vault note is linked to
// that note, so document search and the note graph meet.
UNWIND $rows AS row
CREATE (c:Chunk {project: $project, id: row.id})
SET c.source_file = row.source_file,
    c.namespace = row.namespace,
    c.doc_type = row.doc_type,
    c.idx = row.idx,
    c.content = row.content,
    c.header_path = row.header_path,
    c.page = row.page,
    c.file_hash = row.file_hash,
    c.note_id = row.note_id,
    c.model = row.model,
    c.embedding = row.embedding,
    c.indexed_at = row.indexed_at
WITH c, row
OPTIONAL MATCH (n:Note {project: $project, id: row.note_id})
FOREACH (_ IN CASE WHEN n IS NULL THEN [] ELSE [1] END | MERGE (c)-[:PART_OF]->(n))
RETURN count(*) AS n
