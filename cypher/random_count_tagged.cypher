// Number of notes carrying any of $tags (normalised).
MATCH (n:Note {project: $project})
WHERE n.id IS NOT NULL AND any(t IN n.tagsNorm WHERE t IN $tags)
RETURN count(n) AS count
