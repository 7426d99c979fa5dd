// Backs get_hubs by out-degree: an index-ordered top-k within a project.
CREATE RANGE INDEX note_out_degree IF NOT EXISTS
FOR (n:Note) ON (n.project, n.outDegree)
