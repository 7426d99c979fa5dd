// Number of notes of a project. "n.id IS NOT NULL" always holds; it lets the
// planner count from the (project, id) index instead of scanning the label.
MATCH (n:Note {project: $project})
WHERE n.id IS NOT NULL
RETURN count(n) AS count
