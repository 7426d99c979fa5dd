// Stored degree counts of one note (kept current by every write).
MATCH (n:Note {project: $project, id: $id})
RETURN n.inDegree AS in, n.outDegree AS out
