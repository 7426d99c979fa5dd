// Waits until the eventually consistent fulltext indexes have taken in every
// committed write (about a millisecond when they have), so that keyword
// search sees the notes written before it.
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
