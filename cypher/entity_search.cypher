// search_entities: the project's entities whose title, slug or summary
// contains $text (lowercased in Go, like the stored *Key properties), of
// one of $types (empty: every type), newest first, then by entity ID;
// the count of all matches and the first $limit as [note id, entityDoc].
// A note is no entity when a note with a smaller ID carries its entity ID.
MATCH (n:Note {project: $project})
WHERE n.entityId IS NOT NULL
  AND (size($types) = 0 OR n.entityType IN $types)
  AND (n.entityTitleKey CONTAINS $text OR n.entitySlugKey CONTAINS $text OR n.entitySummaryKey CONTAINS $text)
  AND NOT EXISTS { MATCH (o:Note {project: $project, entityId: n.entityId}) WHERE o.id < n.id }
WITH n
ORDER BY n.entityUpdated DESC, n.entityId ASC
WITH collect(n) AS hits
RETURN size(hits) AS total, [h IN hits[0..$limit] | [h.id, h.entityDoc]] AS page
