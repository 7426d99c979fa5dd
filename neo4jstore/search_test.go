package neo4jstore

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/core/storetest"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// loadCorpus writes a search corpus with its vectors of model "m" into a
// fresh project of s and returns the project.
func loadCorpus(t testing.TB, s core.StoreProvider, c *storetest.SearchCorpus, batch int) string {
	t.Helper()
	ctx := context.Background()
	project := fmt.Sprintf("search-%d", rand.Uint64())
	for chunk := range slices.Chunk(c.Notes, batch) {
		require.NoError(t, s.UpsertNotes(ctx, project, chunk))
	}
	for i := 0; i < len(c.Notes); i += batch {
		vecs := make([]core.NoteVector, 0, batch)
		for j := i; j < min(i+batch, len(c.Notes)); j++ {
			vecs = append(vecs, core.NoteVector{ID: c.Notes[j].ID, Hash: c.Notes[j].Hash, Vector: c.Vectors[j]})
		}
		require.NoError(t, s.SetNoteVectors(ctx, project, "m", vecs))
	}
	return project
}

// TestVectorSearchSameAsMemstore gives both stores the same 3,000 notes
// and vectors (256 dimensions, clustered like real embeddings) and requires
// the same top 10 for 100 query vectors, through Neo4j's vector index
// (approximate, quantised; over-fetched and rescored exactly) and through
// its exact scan, and the same top 10 with the same scores through the
// process's mirror (mirror.go), which VectorSearch uses once it is loaded.
// All must also match the float64 reference.
func TestVectorSearchSameAsMemstore(t *testing.T) {
	// Not parallel: the vector index is the database's, one dimension at a time.
	ctx := t.Context()
	neo, mem := openStore(t), memstore.New()
	c := storetest.NewSearchCorpus(11, 3000, 256)
	pn, pm := loadCorpus(t, neo, c, 500), loadCorpus(t, mem, c, 500)
	t.Cleanup(func() { _, _ = neo.DeleteNotes(context.Background(), pn, noteIDsOf(c.Notes)) })
	waitVectorIndex(t, neo, 256)
	ids := noteIDsOf(c.Notes)

	for i, q := range c.Queries[:100] {
		want := storetest.ExactTopK(ids, c.Vectors, q.Vector, 10)
		got, err := mem.VectorSearch(ctx, pm, "m", q.Vector, 10)
		require.NoError(t, err)
		storetest.SameRanking(t, want, got, 1e-5)

		indexed, complete, err := neo.vectorSearchIndexed(ctx, pn, "m", toFloat64s(q.Vector), 10)
		require.NoError(t, err)
		require.True(t, complete, "query %d: the index found fewer than 10 of the project", i)
		storetest.SameRanking(t, got, indexed, 1e-5)

		exact, err := neo.vectorSearchExact(ctx, pn, "m", toFloat64s(q.Vector), 10)
		require.NoError(t, err)
		storetest.SameRanking(t, got, exact, 1e-5)

		if i == 0 {
			waitMirror(t, neo, pn, "m")
		}
		public, err := neo.VectorSearch(ctx, pn, "m", q.Vector, 10)
		require.NoError(t, err)
		assert.Equal(t, got, public, "VectorSearch answers from the mirror, exactly as memstore")
	}
}

// waitVectorIndex waits until note_embedding is online for dim.
func waitVectorIndex(t testing.TB, s *Neo4jStore, dim int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !s.vectorIndexFits(context.Background(), dim) {
		if time.Now().After(deadline) {
			t.Fatalf("vector index not online for %d dimensions", dim)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestVectorIndexFollowsTheModelsDimension changes the dimension of the
// stored vectors (a change of model): the index is created again for it,
// and queries of the old dimension find nothing rather than wrong notes.
func TestVectorIndexFollowsTheModelsDimension(t *testing.T) {
	// Not parallel: the vector index is the database's, one dimension at a time.
	ctx := t.Context()
	s := openStore(t)
	project := fmt.Sprintf("dims-%d", rand.Uint64())
	notes := []core.Note{{ID: "a.md", Hash: "a"}, {ID: "b.md", Hash: "b"}}
	require.NoError(t, s.UpsertNotes(ctx, project, notes))
	t.Cleanup(func() { _, _ = s.DeleteNotes(context.Background(), project, []string{"a.md", "b.md"}) })

	require.NoError(t, s.SetNoteVectors(ctx, project, "small", []core.NoteVector{
		{ID: "a.md", Hash: "a", Vector: []float32{1, 0, 0}}, {ID: "b.md", Hash: "b", Vector: []float32{0, 1, 0}},
	}))
	waitVectorIndex(t, s, 3)
	hits, err := s.VectorSearch(ctx, project, "small", []float32{1, 0.1, 0}, 1)
	require.NoError(t, err)
	require.Equal(t, []string{"a.md"}, scoredIDs(hits))

	require.NoError(t, s.SetNoteVectors(ctx, project, "large", []core.NoteVector{
		{ID: "a.md", Hash: "a", Vector: []float32{0, 0, 0, 1}}, {ID: "b.md", Hash: "b", Vector: []float32{1, 0, 0, 0}},
	}))
	waitVectorIndex(t, s, 4)
	st, err := s.Status(ctx)
	require.NoError(t, err)
	for _, idx := range st.Indexes {
		if idx.Name == "note_embedding" {
			assert.EqualValues(t, 4, idx.Options["vector.dimensions"])
		}
	}
	hits, err = s.VectorSearch(ctx, project, "large", []float32{1, 0, 0, 0.1}, 1)
	require.NoError(t, err)
	assert.Equal(t, []string{"b.md"}, scoredIDs(hits))
	hits, err = s.VectorSearch(ctx, project, "small", []float32{1, 0.1, 0}, 5)
	require.NoError(t, err)
	assert.Empty(t, hits, "the old model's vectors were replaced")

	// Another process's store learns the new dimension from the database.
	other := openStore(t)
	hits, err = other.VectorSearch(ctx, project, "large", []float32{0, 0, 0, 1}, 1)
	require.NoError(t, err)
	assert.Equal(t, []string{"a.md"}, scoredIDs(hits))
	require.NoError(t, other.SetNoteVectors(ctx, project, "small", []core.NoteVector{{ID: "a.md", Hash: "a", Vector: []float32{1, 0, 0}}}))
	waitVectorIndex(t, other, 3)
	hits, err = s.VectorSearch(ctx, project, "large", []float32{1, 0, 0, 0}, 5)
	require.NoError(t, err)
	assert.Equal(t, []string{"b.md"}, scoredIDs(hits), "a store whose index went away scans exactly")
}

func scoredIDs(hits []core.ScoredID) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func TestLuceneTermsAreOnlyWords(t *testing.T) {
	// Not parallel: the vector index is the database's, one dimension at a time.
	for in, want := range map[string][]string{
		`title:secret AND (x OR y)`:    {"title", "secret", "and", "x", "or", "y"},
		`C++ "quoted" te?t* ~2 \ /re/`: {"c", "quoted", "te", "t", "2", "re"},
		`NOT NOT to TO`:                {"not", "to"},
		`   `:                          nil,
		`naïve Café 2024`:              {"naïve", "café", "2024"},
	} {
		assert.Equal(t, want, luceneTerms(in), "%q", in)
	}
	long := ""
	for i := range 100 {
		long += fmt.Sprintf("w%d ", i)
	}
	assert.Len(t, luceneTerms(long), maxQueryTerms)
}

// statementLog records the names of the statements a store runs (from its
// debug log).
type statementLog struct {
	mu    sync.Mutex
	names []string
}

func (l *statementLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *statementLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "neo4j statement" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "name" {
			l.mu.Lock()
			l.names = append(l.names, a.Value.String())
			l.mu.Unlock()
		}
		return true
	})
	return nil
}
func (l *statementLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *statementLog) WithGroup(string) slog.Handler      { return l }

func (l *statementLog) count(name string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.names {
		if s == name {
			n++
		}
	}
	return n
}

// TestKeywordStatisticsAreCached: a second search for the same words within
// keywordStatsTTL scores the same without reading the statistics again; a
// new word, or statistics past their time, reads them.
func TestKeywordStatisticsAreCached(t *testing.T) {
	// Not parallel: the vector index is the database's, one dimension at a time.
	log := &statementLog{}
	s := openStoreWith(t, func(c *Config) { c.Logger = slog.New(log) })
	ctx := t.Context()
	project := fmt.Sprintf("kwstats-%d", rand.Uint64())
	notes := []core.Note{
		{ID: "a.md", Title: "Alpha", Content: "zebra quagga okapi", Hash: "a"},
		{ID: "b.md", Title: "Beta", Content: "zebra giraffe", Hash: "b"},
	}
	require.NoError(t, s.UpsertNotes(ctx, project, notes))
	t.Cleanup(func() { _, _ = s.DeleteNotes(context.Background(), project, noteIDsOf(notes)) })

	first, err := s.KeywordSearch(ctx, project, "zebra okapi", 10)
	require.NoError(t, err)
	require.NotEmpty(t, first)
	require.Equal(t, 1, log.count("search_keyword_stats"))
	again, err := s.KeywordSearch(ctx, project, "okapi zebra", 10)
	require.NoError(t, err)
	assert.Equal(t, first, again, "same words, same scores")
	assert.Equal(t, 1, log.count("search_keyword_stats"), "fresh statistics are not read again")

	_, err = s.KeywordSearch(ctx, project, "zebra giraffe", 10)
	require.NoError(t, err)
	assert.Equal(t, 2, log.count("search_keyword_stats"), "a new word reads them")

	s.keywordStats.mu.Lock()
	s.keywordStats.notesAt = s.keywordStats.notesAt.Add(-2 * keywordStatsTTL)
	s.keywordStats.mu.Unlock()
	stale, err := s.KeywordSearch(ctx, project, "zebra okapi", 10)
	require.NoError(t, err)
	assert.Equal(t, 3, log.count("search_keyword_stats"), "stale statistics are read again")
	assert.Equal(t, scoredIDs(first), scoredIDs(stale))
}
