// Number of notes carrying any of $tags (normalised) or a tag nested under
// one (core.TagMatches).
MATCH (n:Note {project: $project})
WHERE n.id IS NOT NULL AND NOT any(e IN $files WHERE toLower(n.id) ENDS WITH e)
      AND any(t IN n.tagsNorm WHERE any(w IN $tags WHERE t = w OR t STARTS WITH w + '/'))
RETURN count(n) AS count
