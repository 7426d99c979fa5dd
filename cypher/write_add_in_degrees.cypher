// Adds to stored in-degrees the links write_link_new created: one update
// per target instead of one per link, which matters for hubs.
UNWIND $increments AS inc
MATCH (n:Note {project: $project, id: inc.id})
SET n.inDegree = n.inDegree + inc.count
