// After a mirror's scan: the project's vector revision, and which of the
// candidates $ids still have a vector of $model (the others were deleted,
// here or by another process). One round trip per query when nothing
// changed.
OPTIONAL MATCH (m:VectorMeta {project: $project})
WITH coalesce(m.epoch, '') AS epoch, coalesce(m.rev, 0) AS rev
OPTIONAL MATCH (n:Note)
WHERE n.project = $project AND n.id IN $ids
  AND n.embeddingModel = $model AND n.embedding IS NOT NULL
RETURN epoch, rev, collect(n.id) AS live
