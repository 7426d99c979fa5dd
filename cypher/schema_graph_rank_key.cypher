// One stored PageRank ranking per project (see ranks_save).
CREATE CONSTRAINT graph_rank_key IF NOT EXISTS
FOR (r:GraphRank) REQUIRE r.project IS UNIQUE
