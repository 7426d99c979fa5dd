// get_entity: the entity with ID $id in the project, its comparison
// targets that are entities (in the order written), and its distinct
// (type, other entity) relationships out and in. A relationship's target
// is the current target of the link it names: targets[1 + link index].
MATCH (n:Note {project: $project, entityId: $id})
WHERE NOT EXISTS { MATCH (o:Note {project: $project, entityId: $id}) WHERE o.id < n.id }
CALL (n) {
  UNWIND range(0, size(n.relTypes) - 1) AS i
  WITH n.relTypes[i] AS type, n.targets[1 + n.relLinks[i]] AS target
  MATCH (t:Note {project: $project, id: target})
  WHERE t.entityId IS NOT NULL
    AND NOT EXISTS { MATCH (o:Note {project: $project, entityId: t.entityId}) WHERE o.id < t.id }
  RETURN count(DISTINCT [type, t.entityId]) AS outgoing
}
CALL (n) {
  MATCH (s:Note)-[:LINKS_TO]->(n)
  WHERE s.project = $project AND s.entityId IS NOT NULL
    AND NOT EXISTS { MATCH (o:Note {project: $project, entityId: s.entityId}) WHERE o.id < s.id }
  UNWIND range(0, size(s.relTypes) - 1) AS i
  WITH s, i
  WHERE s.targets[1 + s.relLinks[i]] = n.id
  RETURN count(DISTINCT [s.relTypes[i], s.entityId]) AS incoming
}
CALL (n) {
  UNWIND range(0, size(n.compLinks) - 1) AS i
  WITH i, n.targets[1 + n.compLinks[i]] AS target
  MATCH (t:Note {project: $project, id: target})
  WHERE t.entityId IS NOT NULL
    AND NOT EXISTS { MATCH (o:Note {project: $project, entityId: t.entityId}) WHERE o.id < t.id }
  WITH i, t
  ORDER BY i
  RETURN collect(t.entityId) AS comparisons
}
RETURN n.id AS id, n.entityDoc AS doc, outgoing, incoming, comparisons
