// What keyword scores are normalised by: the number of notes in the fulltext
// index and, per query term, how many notes hold it (counted up to $cap:
// beyond that a term is common and its weight small anyway).
CALL {
  MATCH (n:Note)
  RETURN count(n) AS notes
}
UNWIND $terms AS term
CALL {
  WITH term
  CALL db.index.fulltext.queryNodes('note_fulltext', term, {limit: $cap})
  YIELD node
  RETURN count(node) AS df
}
RETURN notes, term, df
