// The dimension of the chunk vector index, if it exists and is online.
SHOW VECTOR INDEXES YIELD name, state, options
WHERE name = 'chunk_embedding' AND state = 'ONLINE'
RETURN options.indexConfig['vector.dimensions'] AS dimensions
