// get_entity_graph in one query: the root entity $id, the entities one
// relationship away from it in either direction (level 1) and, when
// $depth is 2, the entities one relationship away from those (level 2),
// following only relationships of $types (empty: every type). Each level
// keeps its first $perLevel entities by (title key, entity ID), the order
// core.BuildEntityGraph ranks by, so it never sees more than it can keep.
// Relationships are found along LINKS_TO (a relationship's link is one of
// the note's links) and confirmed on the relationship lists. Every row is
// an entity of the project (checked on every node, though links never
// cross projects) with its depth and its relationships as
// [type, target note ID, notes]; Go shapes nodes and edges.
MATCH (r:Note {project: $project, entityId: $id})
WHERE NOT EXISTS { MATCH (o:Note {project: $project, entityId: $id}) WHERE o.id < r.id }
CALL (r) {
  MATCH (r)-[:LINKS_TO]-(m:Note)
  WHERE m.project = $project AND m <> r AND m.entityId IS NOT NULL
    AND NOT EXISTS { MATCH (o:Note {project: $project, entityId: m.entityId}) WHERE o.id < m.id }
    AND (any(i IN range(0, size(r.relTypes) - 1) WHERE r.targets[1 + r.relLinks[i]] = m.id
                                                    AND (size($types) = 0 OR r.relTypes[i] IN $types))
      OR any(i IN range(0, size(m.relTypes) - 1) WHERE m.targets[1 + m.relLinks[i]] = r.id
                                                    AND (size($types) = 0 OR m.relTypes[i] IN $types)))
  WITH DISTINCT m
  ORDER BY m.entityTitleKey, m.entityId
  LIMIT $perLevel
  RETURN collect(m) AS level1
}
CALL (r, level1) {
  // With $perLevel - 1 or more level-1 entities, no level-2 one can be
  // kept (the root takes a place): skip the walk.
  UNWIND CASE WHEN $depth >= 2 AND size(level1) < $perLevel - 1 THEN level1 ELSE [] END AS a
  MATCH (a)-[:LINKS_TO]-(m:Note)
  WHERE m.project = $project AND m <> r AND NOT m IN level1 AND m.entityId IS NOT NULL
    AND NOT EXISTS { MATCH (o:Note {project: $project, entityId: m.entityId}) WHERE o.id < m.id }
    AND (any(i IN range(0, size(a.relTypes) - 1) WHERE a.targets[1 + a.relLinks[i]] = m.id
                                                    AND (size($types) = 0 OR a.relTypes[i] IN $types))
      OR any(i IN range(0, size(m.relTypes) - 1) WHERE m.targets[1 + m.relLinks[i]] = a.id
                                                    AND (size($types) = 0 OR m.relTypes[i] IN $types)))
  WITH DISTINCT m
  ORDER BY m.entityTitleKey, m.entityId
  LIMIT $perLevel
  RETURN collect(m) AS level2
}
UNWIND [[r, 0]] + [m IN level1 | [m, 1]] + [m IN level2 | [m, 2]] AS found
WITH found[0] AS n, found[1] AS depth
RETURN n.id AS id, n.entityDoc AS doc, depth,
       [i IN range(0, size(n.relTypes) - 1) | [n.relTypes[i], n.targets[1 + n.relLinks[i]], n.relNotes[i]]] AS relations
