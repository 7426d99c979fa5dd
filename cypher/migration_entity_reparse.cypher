// Notes written before entities existed lack their relationship lists and
// entity properties, which only a parse of the file gives. Giving them
// empty lists keeps every entity statement free of nulls, and clearing
// their hash makes the next sync rewrite them (NoteHashes then differs
// from the vault's).
MATCH (n:Note)
WHERE n.relTypes IS NULL
SET n.hash = '', n.relTypes = [], n.relLinks = [], n.relNotes = [], n.compLinks = []
