// Resolves other notes' unresolved links: for each claim {key, id}, every
// note hanging on the ghost of key now links to note id (its targets for
// links with that key are filled in, targets[0] is the revision and stays;
// degrees count a new pair once), and the ghost goes.
UNWIND $claims AS claim
MATCH (u:Unresolved {project: $project, key: claim.key})
MATCH (t:Note {project: $project, id: claim.id})
CALL (u, t, claim) {
  MATCH (src:Note)-[d:DANGLING]->(u)
  DELETE d
  SET src.targets = src.targets[0..1] + [i IN range(0, size(src.linkKeys) - 1) |
        CASE WHEN src.targets[1 + i] = '' AND src.linkKeys[i] = claim.key
             THEN claim.id ELSE src.targets[1 + i] END]
  MERGE (src)-[:LINKS_TO]->(t)
  ON CREATE SET src.outDegree = src.outDegree + 1, t.inDegree = t.inDegree + 1
}
DELETE u
