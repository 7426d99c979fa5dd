package semantic_test

import (
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/semantic"
)

// TestFirstPass: with a fast tier it gives every note the fast tier's
// vector and embeds nothing with the model, once however many callers ask;
// without one, a one-shot process embeds nothing and only counts what
// search will miss, a long-lived one embeds with the model.
func TestFirstPass(t *testing.T) {
	ctx := t.Context()
	quiet := slog.New(slog.DiscardHandler)

	t.Run("fast tier, many callers", func(t *testing.T) {
		s := memstore.New()
		require.NoError(t, s.UpsertNotes(ctx, "p", notes(5)))
		best, fast := &fakeEmbedder{model: "best"}, calibratedFake{&fakeEmbedder{model: "fast"}}
		first := semantic.NewFirstPass(newTieredIndexer(t, s, best, fast, nil), false, quiet)
		var callers sync.WaitGroup
		for range 4 {
			callers.Go(func() { first.Do(ctx) })
		}
		callers.Wait()
		first.Do(ctx)
		assert.Len(t, vectorIDs(t, s, "fast"), 5, "every note searchable through the fast tier")
		assert.Zero(t, best.calls.Load(), "the model's pass is the indexer's, not the first pass's")
		assert.EqualValues(t, 5, fast.texts.Load(), "one pass, whoever asked")
	})

	t.Run("one shot without a fast tier", func(t *testing.T) {
		s := memstore.New()
		require.NoError(t, s.UpsertNotes(ctx, "p", notes(3)))
		best := &fakeEmbedder{model: "best"}
		ix := newIndexer(t, s, best, 10)
		semantic.NewFirstPass(ix, true, quiet).Do(ctx)
		assert.Zero(t, best.calls.Load())
		assert.Equal(t, 3, ix.Pending(), "counted for the call's warning")
	})

	t.Run("long-lived without a fast tier", func(t *testing.T) {
		s := memstore.New()
		require.NoError(t, s.UpsertNotes(ctx, "p", notes(3)))
		best := &fakeEmbedder{model: "best"}
		semantic.NewFirstPass(newIndexer(t, s, best, 10), false, quiet).Do(ctx)
		assert.EqualValues(t, 3, best.texts.Load())
		assert.Len(t, vectorIDs(t, s, "best"), 3)
	})
}
