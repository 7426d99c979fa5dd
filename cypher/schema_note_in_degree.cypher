// Backs get_hubs by in-degree: an index-ordered top-k within a project.
CREATE RANGE INDEX note_in_degree IF NOT EXISTS
FOR (n:Note) ON (n.project, n.inDegree)
