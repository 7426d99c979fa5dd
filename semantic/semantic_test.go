package semantic_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/builtin"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/semantic"
)

// fakeEmbedder hashes words into a small vector: deterministic, and texts
// sharing words are close. It counts the texts it embedded and can be told
// to fail after a number of calls.
type fakeEmbedder struct {
	model    string
	texts    atomic.Int64
	calls    atomic.Int64
	failFrom int64 // calls numbered from 1; 0 never fails
}

func (f *fakeEmbedder) Name() string   { return "fake" }
func (f *fakeEmbedder) Model() string  { return f.model }
func (f *fakeEmbedder) Dimension() int { return 16 }

func (f *fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if c := f.calls.Add(1); f.failFrom > 0 && c >= f.failFrom {
		return nil, core.NewProviderError("embed", errors.New("service down"))
	}
	f.texts.Add(int64(len(texts)))
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 16)
		for _, w := range strings.Fields(strings.ToLower(t)) {
			h := fnv.New32a()
			_, _ = h.Write([]byte(f.model + w))
			v[h.Sum32()%16]++
		}
		out[i] = v
	}
	return out, nil
}

func notes(n int) []core.Note {
	out := make([]core.Note, n)
	for i := range out {
		id := fmt.Sprintf("n%03d.md", i)
		out[i] = core.Note{ID: id, Title: "Note " + id, Content: fmt.Sprintf("body %d word%d", i, i), Hash: "h" + id}
	}
	return out
}

func newIndexer(t *testing.T, s semantic.Store, e core.Embedder, batch int) *semantic.Indexer {
	t.Helper()
	ix, err := semantic.NewIndexer(semantic.IndexerConfig{
		Project: "p", Store: s, Embedder: e, BatchSize: batch,
		Logger: slog.New(slog.DiscardHandler), RetryMin: 10 * time.Millisecond, Debounce: time.Millisecond,
	})
	require.NoError(t, err)
	return ix
}

func TestIndexerEmbedsOnlyNewOrChangedNotes(t *testing.T) {
	ctx, s := t.Context(), memstore.New()
	all := notes(10)
	require.NoError(t, s.UpsertNotes(ctx, "p", all))
	emb := &fakeEmbedder{model: "m1"}
	ix := newIndexer(t, s, emb, 4)

	st, err := ix.IndexStale(ctx)
	require.NoError(t, err)
	assert.Equal(t, semantic.IndexStats{Stale: 10, Embedded: 10, Duration: st.Duration}, st)
	assert.EqualValues(t, 3, emb.calls.Load(), "batches of 4: 4+4+2")

	st, err = ix.IndexStale(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.Stale, "nothing changed, nothing to embed")
	assert.EqualValues(t, 10, emb.texts.Load())

	all[3].Content, all[3].Hash = "rewritten", "h-new"
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{all[3], all[4]})) // 4 unchanged
	st, err = ix.IndexStale(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Embedded, "only the changed note")
	assert.EqualValues(t, 11, emb.texts.Load())
}

func TestAChangeOfModelReembedsWithoutMixingVectors(t *testing.T) {
	ctx, s := t.Context(), memstore.New()
	all := notes(6)
	require.NoError(t, s.UpsertNotes(ctx, "p", all))
	old := &fakeEmbedder{model: "old"}
	_, err := newIndexer(t, s, old, 10).IndexStale(ctx)
	require.NoError(t, err)

	// The new model's service fails after two batches of two notes.
	next := &fakeEmbedder{model: "new", failFrom: 3}
	st, err := newIndexer(t, s, next, 2).IndexStale(ctx)
	require.Error(t, err)
	assert.True(t, core.IsProviderError(err))
	assert.Equal(t, 4, st.Embedded, "finished batches are kept")

	searcher, err := semantic.NewSearcher("p", s, &fakeEmbedder{model: "new"}, nil)
	require.NoError(t, err)
	hits, err := s.VectorSearch(ctx, "p", "new+"+semantic.TextVersion, []float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 50)
	require.NoError(t, err)
	assert.Len(t, hits, 4, "the new model's search sees only notes it embedded")
	got, err := searcher.Search(ctx, "word5", 10)
	require.NoError(t, err)
	assert.Contains(t, ids(got), "n005.md", "keyword relevance still finds the notes not re-embedded yet")

	st, err = newIndexer(t, s, &fakeEmbedder{model: "new"}, 2).IndexStale(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, st.Embedded, "the next pass finishes the job")
	stale, err := s.StaleVectors(ctx, "p", "new+"+semantic.TextVersion)
	require.NoError(t, err)
	assert.Empty(t, stale)
}

func TestARestartEmbedsNothing(t *testing.T) {
	ctx, dir := t.Context(), t.TempDir()
	all := notes(20)
	s, err := memstore.Open(dir)
	require.NoError(t, err)
	require.NoError(t, s.UpsertNotes(ctx, "p", all))
	emb := &fakeEmbedder{model: "m"}
	_, err = newIndexer(t, s, emb, 8).IndexStale(ctx)
	require.NoError(t, err)
	require.NoError(t, s.Close(ctx))

	s, err = memstore.Open(dir)
	require.NoError(t, err)
	defer func() { _ = s.Close(ctx) }()
	require.NoError(t, s.UpsertNotes(ctx, "p", all)) // what the vault sync does
	again := &fakeEmbedder{model: "m"}
	st, err := newIndexer(t, s, again, 8).IndexStale(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.Embedded)
	assert.Zero(t, again.calls.Load(), "the embedder is not called at all")
}

func TestRunEmbedsWhatTheNotifyingStoreReceives(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	s := memstore.New()
	emb := &fakeEmbedder{model: "m"}
	ix := newIndexer(t, s, emb, 8)
	done := make(chan error, 1)
	go func() { done <- ix.Run(ctx) }()

	w := semantic.NewNotifyingStore(s, ix.Notify)
	require.NoError(t, w.UpsertNotes(ctx, "p", notes(5)))
	require.Eventually(t, func() bool {
		stale, err := s.StaleVectors(ctx, "p", "m+"+semantic.TextVersion)
		return err == nil && len(stale) == 0 && emb.texts.Load() == 5
	}, 5*time.Second, 5*time.Millisecond)
	cancel()
	require.NoError(t, <-done)
}

func TestRunRetriesAfterAFailure(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s := memstore.New()
	require.NoError(t, s.UpsertNotes(ctx, "p", notes(3)))
	emb := &flakyEmbedder{fakeEmbedder: fakeEmbedder{model: "m"}, failures: 2}
	ix := newIndexer(t, s, emb, 8)
	go func() { _ = ix.Run(ctx) }()
	require.Eventually(t, func() bool {
		stale, err := s.StaleVectors(ctx, "p", "m+"+semantic.TextVersion)
		return err == nil && len(stale) == 0
	}, 5*time.Second, 5*time.Millisecond)
}

// flakyEmbedder fails its first calls, then works.
type flakyEmbedder struct {
	fakeEmbedder
	mu       sync.Mutex
	failures int
}

func (f *flakyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.mu.Lock()
	if f.failures > 0 {
		f.failures--
		f.mu.Unlock()
		return nil, core.NewProviderError("embed", errors.New("timeout"))
	}
	f.mu.Unlock()
	return f.fakeEmbedder.Embed(ctx, texts)
}

func TestProgressIsLogged(t *testing.T) {
	ctx, s := t.Context(), memstore.New()
	require.NoError(t, s.UpsertNotes(ctx, "p", notes(30)))
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &buf, mu: &mu}, nil))
	ix, err := semantic.NewIndexer(semantic.IndexerConfig{
		Project: "p", Store: s, Embedder: &slowEmbedder{fakeEmbedder{model: "m"}}, BatchSize: 5,
		ProgressInterval: time.Nanosecond, Logger: logger,
	})
	require.NoError(t, err)
	_, err = ix.IndexStale(ctx)
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	out := buf.String()
	assert.Contains(t, out, "semantic: embedding notes")
	assert.Contains(t, out, "semantic: embedding progress")
	assert.Contains(t, out, "done=30 total=30")
	assert.Contains(t, out, "semantic: embedding done")
}

type slowEmbedder struct{ fakeEmbedder }

func (f *slowEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	time.Sleep(time.Millisecond)
	return f.fakeEmbedder.Embed(ctx, texts)
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestHybridSearchWithTheBuiltinModel checks the searcher on real text: a
// paraphrase finds its note by meaning, a rare name by its letters.
func TestHybridSearchWithTheBuiltinModel(t *testing.T) {
	ctx, s := t.Context(), memstore.New()
	docs := []core.Note{
		{ID: "bread.md", Title: "Sourdough", Content: "Feed the starter with flour and water every day; bake the loaf at 250 degrees.", Hash: "1"},
		{ID: "garden.md", Title: "Tomatoes", Content: "Plant the seedlings after the last frost and water them in the morning.", Hash: "2"},
		{ID: "db.md", Title: "Graph databases", Content: "Neo4j stores nodes and relationships; Cypher queries traverse them.", Hash: "3"},
		{ID: "money.md", Title: "Budget", Content: "Put a tenth of each salary into savings before paying the bills.", Hash: "4"},
		{ID: "xq.md", Title: "Project Quizzaciously", Content: "Kick-off notes.", Hash: "5"},
	}
	require.NoError(t, s.UpsertNotes(ctx, "p", docs))
	emb, err := builtin.New()
	require.NoError(t, err)
	_, err = newIndexer(t, s, emb, 2).IndexStale(ctx)
	require.NoError(t, err)
	searcher, err := semantic.NewSearcher("p", s, emb, nil)
	require.NoError(t, err)

	for query, want := range map[string]string{
		"how do I make bread rise with wild yeast": "bread.md",
		"growing vegetables in spring":             "garden.md",
		"saving part of my income":                 "money.md",
		"quizzaciously":                            "xq.md",
	} {
		hits, err := searcher.Search(ctx, query, 3)
		require.NoError(t, err)
		require.NotEmpty(t, hits, query)
		assert.Equal(t, want, hits[0].ID, "query %q: %v", query, hits)
		assert.LessOrEqual(t, len(hits), 3)
		for _, h := range hits {
			assert.True(t, h.Score > 0 && h.Score <= 1, "score %v", h.Score)
		}
	}
}

func ids(hits []core.ScoredID) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func TestSearchFallsBackToKeywordsWhenTheEmbedderFails(t *testing.T) {
	ctx, s := t.Context(), memstore.New()
	require.NoError(t, s.UpsertNotes(ctx, "p", notes(5)))
	_, err := newIndexer(t, s, &fakeEmbedder{model: "m"}, 8).IndexStale(ctx)
	require.NoError(t, err)
	var buf bytes.Buffer
	down := &fakeEmbedder{model: "m", failFrom: 1}
	searcher, err := semantic.NewSearcher("p", s, down, slog.New(slog.NewTextHandler(&buf, nil)))
	require.NoError(t, err)
	hits, err := searcher.Search(ctx, "word3", 5)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Equal(t, "n003.md", hits[0].ID)
	assert.LessOrEqual(t, hits[0].Score, 0.3+1e-9, "keyword relevance alone weighs at most 1 - VectorWeight")
	assert.Contains(t, buf.String(), "answering from keywords only")

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = searcher.Search(cancelled, "word3", 5)
	assert.Error(t, err, "a cancelled search is an error, not a degraded answer")
}

// TestARepeatedQueryIsEmbeddedOnce: the query-vector cache answers a
// repeated query without the embedder, with the same hits; a failure is
// not cached.
func TestARepeatedQueryIsEmbeddedOnce(t *testing.T) {
	ctx, s := t.Context(), memstore.New()
	require.NoError(t, s.UpsertNotes(ctx, "p", notes(5)))
	e := &fakeEmbedder{model: "m"}
	_, err := newIndexer(t, s, e, 8).IndexStale(ctx)
	require.NoError(t, err)
	q := &fakeEmbedder{model: "m"}
	searcher, err := semantic.NewSearcher("p", s, q, nil)
	require.NoError(t, err)
	first, err := searcher.Search(ctx, "word3", 5)
	require.NoError(t, err)
	again, err := searcher.Search(ctx, "word3", 5)
	require.NoError(t, err)
	assert.Equal(t, first, again)
	assert.EqualValues(t, 1, q.texts.Load(), "the repeated query came from the cache")
	_, err = searcher.Search(ctx, "word4", 5)
	require.NoError(t, err)
	assert.EqualValues(t, 2, q.texts.Load(), "another query is embedded")

	down := &fakeEmbedder{model: "m", failFrom: 1}
	searcher, err = semantic.NewSearcher("p", s, down, nil)
	require.NoError(t, err)
	for range 2 {
		_, err = searcher.Search(ctx, "word3", 5)
		require.NoError(t, err)
	}
	assert.EqualValues(t, 2, down.calls.Load(), "a failed embedding is tried again")
}

// Search answers notes: an attachment named like the query and a canvas
// whose card holds it are left out, and the limit is filled with notes
// (docs/DECISIONS.md, "random_node and search answer notes").
func TestSearchAnswersNotesOnly(t *testing.T) {
	ctx, s := t.Context(), memstore.New()
	all := append(notes(3),
		core.Note{ID: "word1.png", Title: "word1.png", Keys: []string{"word1.png"}, Hash: "hp"},
		core.Note{ID: "board.canvas", Title: "board.canvas", Content: "word1 word1 word1", Hash: "hc"})
	require.NoError(t, s.UpsertNotes(ctx, "p", all))
	_, err := newIndexer(t, s, &fakeEmbedder{model: "m"}, 8).IndexStale(ctx)
	require.NoError(t, err)
	searcher, err := semantic.NewSearcher("p", s, &fakeEmbedder{model: "m"}, nil)
	require.NoError(t, err)
	kw, err := s.KeywordSearch(ctx, "p", "word1", 10)
	require.NoError(t, err)
	require.Len(t, kw, 3, "the keyword index holds the attachment and the canvas: %v", kw)
	hits, err := searcher.Search(ctx, "word1", 1)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Equal(t, "n001.md", hits[0].ID)
}
