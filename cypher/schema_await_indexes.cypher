// Blocks until every index is online, so the first queries after a
// migration are planned with them.
CALL db.awaitIndexes($seconds)
