// What the vault mirror keeps of every note of a project (core.NoteStates):
// the state property, or the doc of a note written before states existed.
MATCH (n:Note {project: $project})
WHERE n.id IS NOT NULL
RETURN n.id AS id, n.hash AS hash, coalesce(n.state, n.doc) AS state, n.targets AS targets
