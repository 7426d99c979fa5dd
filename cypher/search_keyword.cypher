// Keyword relevance through the fulltext index on title and content,
// over-fetched across projects and then filtered: fetched tells whether the
// index had more. $query is built from the user's words only, each escaped.
CALL db.index.fulltext.queryNodes('note_fulltext', $query, {limit: $fetch})
YIELD node, score
WITH count(*) AS fetched,
     collect(CASE WHEN node.project = $project THEN {id: node.id, score: score} END) AS hits
RETURN fetched, hits
