// The project's notes whose vector was set after revision $since, with
// their model and vector (null: nothing to embed): what a mirror applies to
// catch up. At most $limit; more means the mirror loads again instead.
MATCH (n:Note)
WHERE n.project = $project AND n.vectorRev > $since
RETURN n.id AS id, n.embeddingModel AS model, n.embedding AS embedding
LIMIT $limit
