// For semantic search. The dimension is fixed when the index is created;
// changing it later means dropping the index (see neo4jstore's doc).
CREATE VECTOR INDEX note_embedding IF NOT EXISTS
FOR (n:Note) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
