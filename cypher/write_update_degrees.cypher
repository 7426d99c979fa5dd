// Recounts the stored degrees of the given notes. Relationships are kept one
// per distinct pair, so counting them counts distinct notes; a self-link is
// one incoming and one outgoing relationship.
UNWIND $ids AS id
MATCH (n:Note {project: $project, id: id})
SET n.inDegree = COUNT { (n)<-[:LINKS_TO]-() },
    n.outDegree = COUNT { (n)-[:LINKS_TO]->() }
