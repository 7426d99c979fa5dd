// One change counter per project (see write_bump_version).
CREATE CONSTRAINT graph_meta_key IF NOT EXISTS
FOR (g:GraphMeta) REQUIRE g.project IS UNIQUE
