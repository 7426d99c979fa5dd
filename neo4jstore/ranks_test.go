package neo4jstore

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
)

// Of many Stores asking for one lease at once exactly one gets it; the
// holder renews it, nobody else takes it before it expires or is given
// back, and then another can.
func TestLeaseHasOneHolder(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	stores := []*Neo4jStore{openStore(t), openStore(t), openStore(t)}
	project := fmt.Sprintf("lease-%d", rand.Uint64())

	var mu sync.Mutex
	var held []int
	var wg sync.WaitGroup
	for i, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := s.TryLease(ctx, project, "work", time.Minute)
			assert.NoError(t, err)
			if ok {
				mu.Lock()
				held = append(held, i)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	require.Len(t, held, 1, "exactly one holder")
	holder, other := stores[held[0]], stores[(held[0]+1)%len(stores)]

	ok, err := holder.TryLease(ctx, project, "work", time.Minute)
	require.NoError(t, err)
	assert.True(t, ok, "the holder renews")
	ok, err = other.TryLease(ctx, project, "work", time.Minute)
	require.NoError(t, err)
	assert.False(t, ok, "nobody else takes it")
	ok, err = other.TryLease(ctx, project, "other work", time.Minute)
	require.NoError(t, err)
	assert.True(t, ok, "leases of other names are apart")

	require.NoError(t, other.ReleaseLease(ctx, project, "work"), "giving back what one does not hold is a no-op")
	require.NoError(t, holder.ReleaseLease(ctx, project, "work"))
	ok, err = other.TryLease(ctx, project, "work", 50*time.Millisecond)
	require.NoError(t, err)
	assert.True(t, ok, "given back: another takes it")

	// Expiry, by the server's clock.
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, err = holder.TryLease(ctx, project, "work", time.Minute)
		require.NoError(t, err)
		if ok {
			break
		}
		require.True(t, time.Now().Before(deadline), "an expired lease is never taken over")
		time.Sleep(20 * time.Millisecond)
	}

	_, err = holder.TryLease(ctx, project, "", time.Minute)
	assert.ErrorIs(t, err, core.ErrInvalidArgument)
}

// waitRanking asks s for PageRank hubs until an answer comes without a
// warning.
func waitRanking(t *testing.T, s *Neo4jStore, project string, limit int) []core.Hub {
	t.Helper()
	h, err := currentHubs(t.Context(), s, project, core.MetricPageRank, limit)
	require.NoError(t, err)
	return h
}

// PageRank is computed once per change, by one of the replicas, stored in
// Neo4j and read by every replica; a replica reading while the ranking is
// behind gets the older one at once, with a warning saying so, and the
// current one once a replica recomputed it.
func TestPageRankIsSharedByReplicas(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	logA, logB := &statementLog{}, &statementLog{}
	a := openStoreWith(t, func(c *Config) { c.Logger = slog.New(logA) })
	b := openStoreWith(t, func(c *Config) { c.Logger = slog.New(logB) })
	project := fmt.Sprintf("ranks-%d", rand.Uint64())
	spec := graphSpec{notes: 200, seed: 9, avgLinks: 3, preferHubs: 0.6, selfLinks: 0.05, ghosts: 0.1, components: 2, tags: 4, content: 20}
	notes := spec.generate()
	require.NoError(t, a.UpsertNotes(ctx, project, notes))

	want := func() []core.Hub {
		var ids []string
		var edges [][2]string
		for _, n := range notes {
			ids = append(ids, n.ID)
		}
		got, err := a.GetNotes(ctx, project, ids)
		require.NoError(t, err)
		for _, n := range got {
			for _, target := range n.LinkTargets() {
				edges = append(edges, [2]string{n.ID, target})
			}
		}
		return core.RankHubs(core.PageRankScores(ids, edges), 10)
	}
	same := func(want, got []core.Hub, msg string) {
		t.Helper()
		require.Len(t, got, len(want), msg)
		for i := range want {
			assert.Equal(t, want[i].ID, got[i].ID, "%s: rank %d", msg, i)
			assert.InDelta(t, want[i].Score, got[i].Score, 1e-9, "%s: score of %s", msg, want[i].ID)
		}
	}
	expected := want()
	same(expected, waitRanking(t, b, project, 10), "replica b")
	same(expected, waitRanking(t, a, project, 10), "replica a")
	assert.Equal(t, 1, logA.count("ranks_graph")+logB.count("ranks_graph"), "computed once, by one of the replicas")

	// Hold the lease as a third process would while it computes: the
	// replicas cannot recompute, and answer the older ranking with a
	// warning, without the note deleted since.
	top := expected[0].ID
	_, err := neo4j.ExecuteQuery(ctx, a.driver(), stmtLeaseTake.text, map[string]any{"project": project, "name": rankLease, "holder": "someone else", "ttl_ms": int64(60_000)},
		neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithDatabase(a.cfg.Database))
	require.NoError(t, err)
	_, err = a.DeleteNotes(ctx, project, []string{top})
	require.NoError(t, err)
	wctx, warnings := core.WithCallWarnings(ctx)
	start := time.Now()
	stale, err := b.Hubs(wctx, project, core.MetricPageRank, 5)
	require.NoError(t, err)
	t.Logf("stale answer in %s", time.Since(start))
	require.Len(t, warnings.List(), 1)
	assert.Contains(t, warnings.List()[0], "before the latest 1 change")
	assert.Equal(t, hubIDs(expected[1:6]), hubIDs(stale), "the older ranking, without the deleted note")

	// The lease given back: a replica recomputes.
	_, err = neo4j.ExecuteQuery(ctx, a.driver(), stmtLeaseRelease.text, map[string]any{"project": project, "name": rankLease, "holder": "someone else"},
		neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithDatabase(a.cfg.Database))
	require.NoError(t, err)
	notes = slicesDeleteID(notes, top)
	same(want(), waitRanking(t, b, project, 10), "after the delete")
}

// A Store closing after writes leaves the ranking current: a one-shot
// sync's readers find it computed.
func TestCloseFinishesTheRanking(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	reader := openStore(t)
	project := fmt.Sprintf("ranks-close-%d", rand.Uint64())
	writer, err := Open(ctx, configFor(neo4jtest.Get(t)))
	require.NoError(t, err)
	require.NoError(t, writer.UpsertNotes(ctx, project, graphNotesOf(map[string][]string{"a.md": {"b.md"}, "b.md": {"c.md"}, "c.md": {"a.md", "b.md"}})))
	require.NoError(t, writer.Close(ctx))
	rk, err := reader.readRanking(ctx, project, 10)
	require.NoError(t, err)
	assert.True(t, rk.current(), "ranking at %d, graph at %d", rk.ranked, rk.version)
	assert.Equal(t, "b.md", rk.hubs[0].ID)
}

func slicesDeleteID(notes []core.Note, id string) []core.Note {
	out := make([]core.Note, 0, len(notes))
	for _, n := range notes {
		if n.ID != id {
			out = append(out, n)
		}
	}
	return out
}

func graphNotesOf(adj map[string][]string) []core.Note {
	var out []core.Note
	for id, targets := range adj {
		n := core.Note{ID: id, Title: strings.TrimSuffix(id, ".md"), Hash: id}
		for _, target := range targets {
			n.Links = append(n.Links, core.Link{Raw: "[[" + target + "]]", Key: strings.TrimSuffix(target, ".md"), Target: target})
		}
		out = append(out, n)
	}
	return out
}
