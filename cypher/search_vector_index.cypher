// Nearest vectors through the vector index, over-fetched across projects and
// models and then filtered: fetched tells whether the index had more. The
// index may score from quantised vectors, so candidates are scored again
// exactly from their stored vectors. Scores are (1 + cosine) / 2.
CALL db.index.vector.queryNodes('note_embedding', $fetch, $vector)
YIELD node
WITH count(*) AS fetched,
     collect(CASE WHEN node.project = $project AND node.embeddingModel = $model
                  THEN {id: node.id, score: vector.similarity.cosine(node.embedding, $vector)} END) AS hits
RETURN fetched, hits
