// One GraphChange per write of a project (see write_bump_version); the
// constraint's index serves catalog catch-ups (a range of versions) and the
// pruning of the oldest.
CREATE CONSTRAINT graph_change_key IF NOT EXISTS
FOR (c:GraphChange) REQUIRE (c.project, c.version) IS UNIQUE
