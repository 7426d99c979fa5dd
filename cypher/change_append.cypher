// Logs one note change unless it equals the newest change logged for the
// same note (two processes mirroring one vault both see each edit), or its
// key is logged already; added is false then.
OPTIONAL MATCH (last:NoteChange {project: $project, note: $props.note})
WITH last ORDER BY last.key DESC LIMIT 1
WITH last
WHERE last IS NULL OR NOT (last.kind = $props.kind AND last.path = $props.path
                           AND last.old_path = $props.old_path AND last.hash = $props.hash)
MERGE (c:NoteChange {project: $project, key: $key})
ON CREATE SET c += $props
RETURN true AS added
