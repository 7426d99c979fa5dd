// The vector index on note embeddings: its dimension and whether it is
// ready to answer.
SHOW VECTOR INDEXES
YIELD name, state, options
WHERE name = 'note_embedding'
RETURN state, options.indexConfig['vector.dimensions'] AS dimensions
