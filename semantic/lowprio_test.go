package semantic_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vaultgraph/vaultgraph/internal/lowprio"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/semantic"
)

// priorityEmbedder records whether its batches came marked as background
// work (lowprio).
type priorityEmbedder struct {
	fakeEmbedder
	background, foreground atomic.Int64
}

func (p *priorityEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if lowprio.Background(ctx) {
		p.background.Add(1)
	} else {
		p.foreground.Add(1)
	}
	return p.fakeEmbedder.Embed(ctx, texts)
}

// Issue 49.2: a pass nobody waits for (IndexStale, Run) embeds at the
// lowest CPU priority; a pass a command waits for (IndexStaleReport,
// sync --embed) at normal priority.
func TestBackgroundPassesRunAtLowPriority(t *testing.T) {
	ctx, s := t.Context(), memstore.New()
	require.NoError(t, s.UpsertNotes(ctx, "p", notes(6)))
	emb := &priorityEmbedder{fakeEmbedder: fakeEmbedder{model: "m"}}
	ix, err := semantic.NewIndexer(semantic.IndexerConfig{Project: "p", Store: s, Embedder: emb, BatchSize: 2,
		Logger: slog.New(slog.DiscardHandler), IdleAbove: -1})
	require.NoError(t, err)
	_, err = ix.IndexStale(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 3, emb.background.Load())
	assert.Zero(t, emb.foreground.Load())

	// A pass of a few notes (below DefaultIdleAbove) runs at normal
	// priority: a note just written is embedded at once on a busy machine.
	few := &priorityEmbedder{fakeEmbedder: fakeEmbedder{model: "m3"}}
	_, err = newIndexer(t, s, few, 2).IndexStale(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 3, few.foreground.Load())
	assert.Zero(t, few.background.Load())

	emb2 := &priorityEmbedder{fakeEmbedder: fakeEmbedder{model: "m2"}}
	var batches []int
	_, err = newIndexer(t, s, emb2, 4).IndexStaleReport(ctx, func(done, total int) {
		assert.Equal(t, 6, total)
		batches = append(batches, done)
	})
	require.NoError(t, err)
	assert.Equal(t, []int{4, 6}, batches)
	assert.EqualValues(t, 2, emb2.foreground.Load())
	assert.Zero(t, emb2.background.Load())
}
