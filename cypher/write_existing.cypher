// Which of $ids name notes of the project: tells the writer which notes of a
// batch are new and which link targets exist, before it writes anything.
UNWIND $ids AS id
MATCH (n:Note {project: $project, id: id})
RETURN collect(n.id) AS existing
