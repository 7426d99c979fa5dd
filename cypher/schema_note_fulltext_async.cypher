// For keyword and hybrid search over titles and bodies. Eventually
// consistent: Lucene takes in a commit's notes in the background instead of
// inside the commit, which made a first sync of 100k notes three times
// slower. Keyword search first waits for that (search_keyword_refresh), so a
// read after a write still finds it.
CREATE FULLTEXT INDEX note_fulltext IF NOT EXISTS
FOR (n:Note) ON EACH [n.title, n.content]
OPTIONS {indexConfig: {`fulltext.eventually_consistent`: true}}
