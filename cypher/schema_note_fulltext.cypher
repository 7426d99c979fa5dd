// For keyword and hybrid search over titles and bodies.
CREATE FULLTEXT INDEX note_fulltext IF NOT EXISTS
FOR (n:Note) ON EACH [n.title, n.content]
