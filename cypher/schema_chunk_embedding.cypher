// The vector index of chunk embeddings, created when the first vectors are
// written (their length is the dimension). Vectors of another length are
// not indexed; searches with them scan exactly (see neo4jstore/chunks.go).
CREATE VECTOR INDEX chunk_embedding IF NOT EXISTS
FOR (c:Chunk) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
