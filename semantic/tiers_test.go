package semantic_test

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/internal/testwait"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/semantic"
)

// calibratedFake is a fast tier whose cosines map to half their value.
type calibratedFake struct{ *fakeEmbedder }

func (c calibratedFake) Calibrate(x float64) float64 { return x / 2 }

func newTieredIndexer(t *testing.T, s semantic.Store, best, fast core.Embedder, progress func(semantic.Progress)) *semantic.Indexer {
	t.Helper()
	ix, err := semantic.NewIndexer(semantic.IndexerConfig{
		Project: "p", Store: s, Embedder: best, Fast: fast, BatchSize: 100, SlowBatchSize: 2,
		Logger: slog.New(slog.DiscardHandler), RetryMin: 10 * time.Millisecond, Debounce: time.Millisecond,
		OnProgress: progress,
	})
	require.NoError(t, err)
	return ix
}

func vectorIDs(t *testing.T, s *memstore.Store, model string) []string {
	t.Helper()
	hits, err := s.VectorSearch(t.Context(), "p", model+"+"+semantic.TextVersion, slices.Repeat([]float32{1}, 16), 100)
	require.NoError(t, err)
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	slices.Sort(ids)
	return ids
}

// TestFastTierFirstThenBest: notes with no vector get the fast tier's, the
// best model's replace them, a restart embeds nothing, and an edited note
// goes through the fast tier again.
func TestFastTierFirstThenBest(t *testing.T) {
	ctx, s := t.Context(), memstore.New()
	all := notes(5)
	require.NoError(t, s.UpsertNotes(ctx, "p", all))
	best, fast := &fakeEmbedder{model: "best"}, calibratedFake{&fakeEmbedder{model: "fast"}}
	var reports []semantic.Progress
	ix := newTieredIndexer(t, s, best, fast, func(p semantic.Progress) { reports = append(reports, p) })
	assert.Equal(t, -1, ix.Pending(), "unknown before the first count")

	st, err := ix.IndexStale(ctx)
	require.NoError(t, err)
	assert.Equal(t, 5, st.Stale)
	assert.Equal(t, 5, st.Fast, "every note searchable through the fast tier first")
	assert.Equal(t, 5, st.Embedded)
	assert.EqualValues(t, 3, best.calls.Load(), "slow batches of 2")
	assert.Zero(t, ix.Pending())
	assert.Len(t, vectorIDs(t, s, "best"), 5)
	assert.Empty(t, vectorIDs(t, s, "fast"), "a note keeps one vector: the best one")
	require.NotEmpty(t, reports)
	last := reports[len(reports)-1]
	assert.True(t, last.Done)
	assert.Equal(t, 5, last.Embedded)
	assert.Equal(t, "best", last.Model)

	// A restart (a new indexer on the same store) embeds nothing.
	ix = newTieredIndexer(t, s, &fakeEmbedder{model: "best"}, fast, nil)
	st, err = ix.IndexStale(ctx)
	require.NoError(t, err)
	assert.Equal(t, semantic.IndexStats{Duration: st.Duration}, st)

	// An edited note: fast vector first (its best vector is of the old
	// content), then the best one.
	all[2].Content, all[2].Hash = "new words", "h2-new"
	require.NoError(t, s.UpsertNotes(ctx, "p", all[2:3]))
	st, err = ix.IndexStale(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Fast)
	assert.Equal(t, 1, st.Embedded)
	assert.EqualValues(t, 6, fast.texts.Load())
}

// TestSlowPassYieldsToNewNotes: Run's pass stops between slow batches when
// notes are written, so they get fast vectors before the rest goes on.
func TestSlowPassYieldsToNewNotes(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s := memstore.New()
	require.NoError(t, s.UpsertNotes(ctx, "p", notes(40)))
	fast := calibratedFake{&fakeEmbedder{model: "fast"}}
	best := &gatedEmbedder{fakeEmbedder: &fakeEmbedder{model: "best"}, gate: make(chan struct{})}
	ix := newTieredIndexer(t, s, best, fast, nil)
	done := make(chan struct{})
	go func() { _ = ix.Run(ctx); close(done) }()

	best.gate <- struct{}{} // the first slow batch is under way
	extra := core.Note{ID: "zz-new.md", Title: "new", Content: "fresh words", Hash: "hz"}
	require.NoError(t, semantic.NewNotifyingStore(s, ix.Notify).UpsertNotes(ctx, "p", []core.Note{extra}))
	close(best.gate) // let every slow batch through
	require.Eventually(t, func() bool {
		return slices.Contains(vectorIDs(t, s, "fast"), "zz-new.md") || slices.Contains(vectorIDs(t, s, "best"), "zz-new.md")
	},
		20*time.Second, 5*time.Millisecond, "the new note gets a vector")
	require.Eventually(t, func() bool { return ix.Pending() == 0 && len(vectorIDs(t, s, "best")) == 41 },
		20*time.Second, 5*time.Millisecond, "and every note its best vector in the end")
	cancel()
	testwait.Recv(t, done, "the indexer's end after cancel")
}

// gatedEmbedder waits for a token (or a closed gate) before each call.
type gatedEmbedder struct {
	*fakeEmbedder
	gate chan struct{}
}

func (s *gatedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case <-s.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.fakeEmbedder.Embed(ctx, texts)
}

// TestSearchComparesEachNoteThroughItsBestVector: while notes are mixed,
// search sees notes of both tiers, the fast tier's scores calibrated; once
// nothing is pending, only the best model is asked.
func TestSearchComparesEachNoteThroughItsBestVector(t *testing.T) {
	ctx, s := t.Context(), memstore.New()
	all := []core.Note{
		{ID: "a.md", Title: "alpha", Content: "apple banana", Hash: "ha"},
		{ID: "b.md", Title: "beta", Content: "apple banana", Hash: "hb"},
	}
	require.NoError(t, s.UpsertNotes(ctx, "p", all))
	best, fast := &fakeEmbedder{model: "best"}, calibratedFake{&fakeEmbedder{model: "fast"}}
	bv, err := best.Embed(ctx, []string{semantic.Text(&all[0])})
	require.NoError(t, err)
	fv, err := fast.Embed(ctx, []string{semantic.Text(&all[1])})
	require.NoError(t, err)
	require.NoError(t, s.SetNoteVectors(ctx, "p", "best", []core.NoteVector{{ID: "a.md", Hash: "ha", Vector: bv[0]}}))
	require.NoError(t, s.SetNoteVectors(ctx, "p", "fast", []core.NoteVector{{ID: "b.md", Hash: "hb", Vector: fv[0]}}))

	pending := 1
	sr, err := semantic.NewSearcher("p", s, best, nil, semantic.WithFastTier(fast, func() int { return pending }))
	require.NoError(t, err)
	// The query is b's own text: cosine 1 through the fast tier, mapped
	// to 0.5 on the best model's scale.
	hits, err := sr.Search(ctx, semantic.Text(&all[1]), 10)
	require.NoError(t, err)
	ids := map[string]float64{}
	for _, h := range hits {
		ids[h.ID] = h.Score
	}
	require.Contains(t, ids, "b.md", "a note with only a fast vector is found by its vector")
	require.Contains(t, ids, "a.md")
	fastCalls := fast.calls.Load()
	require.Positive(t, fastCalls)

	pending = 0
	_, err = sr.Search(ctx, "apple", 10)
	require.NoError(t, err)
	assert.Equal(t, fastCalls, fast.calls.Load(), "nothing pending: the fast tier is not asked")
}

// TestAttachmentsAndCanvasesAreNotEmbedded: search answers notes only, so
// neither tier embeds an attachment or a canvas, they count in no pass or
// pending figure, and a pass over a vault of only such files embeds
// nothing.
func TestAttachmentsAndCanvasesAreNotEmbedded(t *testing.T) {
	ctx, s := t.Context(), memstore.New()
	files := []core.Note{
		{ID: "img/photo.png", Title: "photo.png", Keys: []string{"photo.png"}, Hash: "hp"},
		{ID: "board.canvas", Title: "board.canvas", Content: `{"nodes":[{"type":"text","text":"body words"}]}`, Hash: "hc"},
		{ID: "docs/Paper.PDF", Title: "Paper.PDF", Hash: "hd"},
	}
	require.NoError(t, s.UpsertNotes(ctx, "p", files))
	best, fast := &fakeEmbedder{model: "best"}, &fakeEmbedder{model: "fast"}
	ix := newTieredIndexer(t, s, best, fast, nil)
	st, err := ix.IndexStale(ctx)
	require.NoError(t, err)
	assert.Equal(t, semantic.IndexStats{Duration: st.Duration}, st, "no note: nothing to embed")
	assert.Zero(t, ix.Pending())

	require.NoError(t, s.UpsertNotes(ctx, "p", notes(3)))
	st, err = ix.IndexStale(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, st.Stale)
	assert.Equal(t, 3, st.Fast)
	assert.Equal(t, 3, st.Embedded)
	assert.Zero(t, ix.Pending())
	assert.EqualValues(t, 3, fast.texts.Load(), "the fast tier embedded the notes alone")
	assert.EqualValues(t, 3, best.texts.Load(), "the model embedded the notes alone")
	assert.Equal(t, []string{"n000.md", "n001.md", "n002.md"}, vectorIDs(t, s, "best"), "the model's vectors replaced the fast tier's")
	n, err := ix.CountStale(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "the files are not counted as waiting")
}
