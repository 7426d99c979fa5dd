// Deletes every chunk of one source file (and its PART_OF relationship);
// returns how many there were.
MATCH (c:Chunk {project: $project, source_file: $source})
DETACH DELETE c
RETURN count(*) AS n
