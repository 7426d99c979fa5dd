package semantic_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
	"github.com/vaultgraph/vaultgraph/internal/testwait"
	"github.com/vaultgraph/vaultgraph/neo4jstore"
	"github.com/vaultgraph/vaultgraph/semantic"
)

// gateEmbedder is a fakeEmbedder whose first Embed call tells started and
// then waits for release: a pass held mid-batch.
type gateEmbedder struct {
	fakeEmbedder
	once    sync.Once
	started chan struct{}
	release chan struct{}
}

func (g *gateEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	g.once.Do(func() {
		close(g.started)
		select {
		case <-g.release:
		case <-ctx.Done():
		}
	})
	return g.fakeEmbedder.Embed(ctx, texts)
}

// TestEmbeddingLeaseOnePassPerVault (issue 49.9): two replicas on one
// Neo4j database, each with its own store and indexer, run the background
// pass at once; only the one holding the vault's embedding lease embeds,
// the other skips and searches the vectors the holder stored; once the
// holder is gone (its lease expired, never given back), the other takes
// over.
func TestEmbeddingLeaseOnePassPerVault(t *testing.T) {
	if os.Getenv("VAULTGRAPH_REQUIRE_NEO4J") == "" && testing.Short() {
		t.Skip("needs Neo4j")
	}
	srv := neo4jtest.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	open := func() *neo4jstore.Neo4jStore {
		s, err := neo4jstore.Open(ctx, neo4jstore.Config{URI: srv.URI, User: srv.User, Password: srv.Password, Database: srv.Database})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close(context.Background()) })
		return s
	}
	a, b := open(), open()
	project := fmt.Sprintf("lease-%d", time.Now().UnixNano())
	ns := notes(6)
	require.NoError(t, a.UpsertNotes(ctx, project, ns))
	t.Cleanup(func() {
		ids := make([]string, len(ns))
		for i, n := range ns {
			ids[i] = n.ID
		}
		_, _ = a.DeleteNotes(context.Background(), project, ids)
	})
	indexer := func(s *neo4jstore.Neo4jStore, e core.Embedder, ttl time.Duration) *semantic.Indexer {
		ix, err := semantic.NewIndexer(semantic.IndexerConfig{
			Project: project, Store: s, Embedder: e, BatchSize: 2, Lease: s, LeaseTTL: ttl,
			Logger: slog.New(slog.DiscardHandler),
		})
		require.NoError(t, err)
		return ix
	}
	ea := &gateEmbedder{fakeEmbedder: fakeEmbedder{model: "m"}, started: make(chan struct{}), release: make(chan struct{})}
	eb := &gateEmbedder{fakeEmbedder: fakeEmbedder{model: "m"}, started: make(chan struct{}), release: make(chan struct{})}
	close(eb.release)
	ixA, ixB := indexer(a, ea, time.Minute), indexer(b, eb, time.Minute)

	type result struct {
		st  semantic.IndexStats
		err error
	}
	doneA := make(chan result, 1)
	go func() {
		st, err := ixA.IndexStale(ctx)
		doneA <- result{st, err}
	}()
	testwait.Recv(t, ea.started, "A's first batch") // A holds the lease and is inside its first batch
	st, err := ixB.IndexStale(ctx)
	require.NoError(t, err)
	require.True(t, st.Elsewhere, "B skips while A holds the lease")
	require.Zero(t, st.Embedded)
	require.Zero(t, eb.texts.Load(), "B embedded nothing")
	require.Equal(t, 6, ixB.Pending(), "B counts what waits")
	close(ea.release)
	ra := testwait.Recv(t, doneA, "A's pass")
	require.NoError(t, ra.err)
	require.False(t, ra.st.Elsewhere)
	require.Equal(t, 6, ra.st.Embedded)

	// B searches A's vectors (through Neo4j), and finds nothing stale.
	stale, err := b.StaleVectors(ctx, project, semantic.NoteModel(eb))
	require.NoError(t, err)
	require.Empty(t, stale)
	q, err := (&fakeEmbedder{model: "m"}).Embed(ctx, []string{ns[3].Title + "\n\n" + ns[3].Content})
	require.NoError(t, err)
	hits, err := b.VectorSearch(ctx, project, semantic.NoteModel(eb), q[0], 3)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	require.Equal(t, ns[3].ID, hits[0].ID, "B's vector search sees A's vectors")

	// A holder that stops without giving the lease back: B waits for it
	// to expire, then takes over the pass.
	more := notes(8)[6:]
	require.NoError(t, a.UpsertNotes(ctx, project, more))
	ok, err := a.TryLease(ctx, project, semantic.EmbedLease, 30*time.Second)
	require.NoError(t, err)
	require.True(t, ok)
	st, err = ixB.IndexStale(ctx)
	require.NoError(t, err)
	require.True(t, st.Elsewhere)
	require.Eventually(t, func() bool {
		st, err := ixB.IndexStale(ctx)
		return err == nil && !st.Elsewhere && st.Embedded == 2
	}, 3*time.Minute, 500*time.Millisecond, "B takes the lease once A's expires and embeds the new notes")
	require.Equal(t, int64(2), eb.texts.Load())
}
