// Number of notes of a project that random_nth picks among: every node but
// the attachments and canvases, whose IDs end with one of $files
// (core.FileNodeExtensions, compared lower-cased as core.KindOf does).
MATCH (n:Note {project: $project})
WHERE n.id IS NOT NULL AND NOT any(e IN $files WHERE toLower(n.id) ENDS WITH e)
RETURN count(n) AS count
