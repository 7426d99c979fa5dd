// One vector revision counter per project (see search_bump_vector_rev).
CREATE CONSTRAINT vector_meta_key IF NOT EXISTS
FOR (m:VectorMeta) REQUIRE m.project IS UNIQUE
