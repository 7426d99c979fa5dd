package memory_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/embedding/builtin"
	"github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// A longer path that scores more wins, and depth stays the fewest hops;
// max_depth bounds the paths considered.
func TestInspectScoresTheBestPath(t *testing.T) {
	ctx := t.Context()
	svc := memory.New("p", memstore.New(), nil)
	id := map[string]string{}
	for _, name := range []string{"root", "x", "y", "z"} {
		m, _, err := svc.Store(ctx, memory.StoreInput{Content: name, Type: memory.TypeFact, Namespace: memory.NamespaceGlobal, Importance: 0.5})
		require.NoError(t, err)
		id[name] = m.ID
	}
	relate := func(a, b string, w float64) {
		_, err := svc.Relate(ctx, id[a], id[b], memory.RelRelatesTo, w)
		require.NoError(t, err)
	}
	relate("root", "x", 0.1) // direct but weak: 0.1 x 0.5 = 0.05
	relate("root", "y", 1)   // y: 0.5
	relate("y", "x", 1)      // x via y: 0.25
	relate("x", "z", 1)      // z via y and x: 0.125 (3 hops), via the weak edge: 0.025 (2 hops)

	g, err := svc.Inspect(ctx, id["root"], 3, 0.5)
	require.NoError(t, err)
	scores := map[string]float64{}
	depths := map[string]int{}
	for _, n := range g.Nodes {
		scores[n.ID], depths[n.ID] = n.Score, n.Depth
	}
	assert.Equal(t, 0.25, scores[id["x"]], "the two-hop path beats the direct one")
	assert.Equal(t, 1, depths[id["x"]], "depth is the fewest hops")
	assert.Equal(t, 0.125, scores[id["z"]])
	assert.Equal(t, 2, depths[id["z"]])
	assert.Len(t, g.Edges, 4)
	for _, p := range g.Paths {
		if p.Nodes[len(p.Nodes)-1] == id["z"] {
			assert.Equal(t, []string{id["root"], id["y"], id["x"], id["z"]}, p.Nodes)
		}
	}

	g, err = svc.Inspect(ctx, id["root"], 2, 0.5)
	require.NoError(t, err)
	for _, n := range g.Nodes {
		if n.ID == id["z"] {
			assert.Equal(t, 0.025, n.Score, "within two hops only the weak path reaches z")
		}
	}
}

// Memories stored while semantic search was off (or by another model) are
// embedded by the first similarity operation, so recall finds them.
func TestMemoriesOfAnotherModelAreReembedded(t *testing.T) {
	ctx := t.Context()
	st := memstore.New()
	off := memory.New("p", st, nil)
	m, _, err := off.Store(ctx, memory.StoreInput{Content: "User prefers dark mode for their IDE", Type: memory.TypePreference, Namespace: memory.NamespaceGlobal, Importance: 0.5})
	require.NoError(t, err)
	require.Empty(t, m.Model)

	emb, err := builtin.New()
	require.NoError(t, err)
	on := memory.New("p", st, emb)
	hits, err := on.Recall(ctx, "dark mode", 5, memory.Filter{})
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Equal(t, m.ID, hits[0].ID)
	got, err := on.Get(ctx, m.ID)
	require.NoError(t, err)
	assert.Equal(t, emb.Model(), got.Model)
	n, err := on.Reembed(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, n, "nothing left to embed")
}
