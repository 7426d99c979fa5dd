// First statement of every transaction that sets note vectors: bumps the
// project's vector revision, which the transaction then stamps on every
// note it touches (n.vectorRev). The counter's lock is held to the commit,
// so revisions are in commit order: once revision R is visible, every
// earlier one is too, which is what lets a process mirroring the vectors
// (neo4jstore/mirror.go) read just the notes stamped after the last
// revision it saw. The epoch changes when the counter is created again
// (a wiped database), so a mirror never trusts a revision of another life.
MERGE (m:VectorMeta {project: $project})
ON CREATE SET m.epoch = randomUUID()
SET m.rev = coalesce(m.rev, 0) + 1
RETURN m.epoch AS epoch, m.rev AS rev
