package neo4jstore

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// linkedCatalogOf builds a catalog with links from rows as a full load
// would (out only; links to IDs not in rows are dropped).
func linkedCatalogOf(version int64, rows map[string]*catalogRow) *catalog {
	cat := catalogOf(version, rows)
	var src, dst []int32
	for i, id := range cat.ids {
		for _, t := range rows[id].out {
			if j, ok := slices.BinarySearch(cat.ids, t); ok {
				src, dst = append(src, int32(i)), append(dst, int32(j))
			}
		}
	}
	cat.links = buildLinks(len(cat.ids), src, dst)
	return cat
}

// linkPairs lists a catalog's links as "from → to" by ID, from both
// directions' lists, which must agree.
func linkPairs(t *testing.T, c *catalog) []string {
	t.Helper()
	var out, in []string
	for i := range int32(len(c.ids)) {
		require.True(t, slices.IsSorted(c.links.from(i)) && slices.IsSorted(c.links.to(i)))
		for _, j := range c.links.from(i) {
			out = append(out, c.ids[i]+" → "+c.ids[j])
		}
		for _, j := range c.links.to(i) {
			in = append(in, c.ids[j]+" → "+c.ids[i])
		}
	}
	slices.Sort(in)
	require.Equal(t, out, in, "both directions hold the same links")
	require.Equal(t, len(slices.Compact(slices.Clone(out))), len(out), "no repeats")
	return out
}

// A catch-up's apply gives the links a full load of the new state would,
// when the changed notes' rows carry both sides of their links, for any mix
// of added, removed and relinked notes and of links that unchanged notes
// gain or lose to changed ones (a new note resolving their ghosts, a
// deleted one unlinking them); the old catalog is untouched.
func TestLinksApplyEqualsAFreshBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	id := func() string { return fmt.Sprintf("n%02d.md", rng.IntN(40)) }
	randomOut := func() []string {
		var out []string
		for range rng.IntN(6) {
			out = append(out, id()) // repeats and self-links included
		}
		return out
	}
	for round := range 500 {
		rows := map[string]*catalogRow{}
		for range rng.IntN(30) {
			rows[id()] = &catalogRow{title: "t", out: randomOut()}
		}
		before := linkedCatalogOf(int64(round), rows)
		snapshot := linkedCatalogOf(int64(round), rows)
		beforePairs := linkPairs(t, before)

		// The new state: some notes changed or gone; unchanged notes keep
		// their links among unchanged notes and may gain or lose links to
		// changed ones.
		changedIDs := map[string]bool{}
		for range rng.IntN(8) {
			changedIDs[id()] = true
		}
		after := map[string]*catalogRow{}
		for k, r := range rows {
			if !changedIDs[k] {
				after[k] = &catalogRow{title: r.title, out: slices.Clone(r.out)}
			}
		}
		for k := range changedIDs {
			if rng.IntN(3) > 0 {
				after[k] = &catalogRow{title: "u", out: randomOut()}
			}
		}
		for k, r := range after {
			if changedIDs[k] {
				continue
			}
			r.out = slices.DeleteFunc(r.out, func(x string) bool { return changedIDs[x] && rng.IntN(2) == 0 })
			for c := range changedIDs {
				if rng.IntN(4) == 0 {
					r.out = append(r.out, c)
				}
			}
		}
		// The rows a catch-up reads: both sides of each changed note, as
		// Neo4j holds them (links to notes that exist).
		changed := map[string]*catalogRow{}
		for c := range changedIDs {
			r := after[c]
			if r == nil {
				changed[c] = nil
				continue
			}
			row := &catalogRow{title: r.title}
			for _, x := range r.out {
				if after[x] != nil {
					row.out = append(row.out, x)
				}
			}
			for k, other := range after {
				if slices.Contains(other.out, c) {
					row.in = append(row.in, k)
				}
			}
			changed[c] = row
		}
		got := before.apply(int64(round)+1, changed)
		want := linkedCatalogOf(int64(round)+1, after)
		require.True(t, slices.Equal(want.ids, got.ids), "round %d: %v vs %v", round, want.ids, got.ids)
		require.True(t, slices.Equal(linkPairs(t, want), linkPairs(t, got)), "round %d: %v vs %v", round, linkPairs(t, want), linkPairs(t, got))
		require.Equal(t, snapshot.links, before.links, "round %d: the old links are untouched", round)
		require.Equal(t, beforePairs, linkPairs(t, before))
	}
}

// The catalog's path search gives memstore's path for every pair of random
// graphs with many tied shortest paths, and of a layered graph with
// thousands (the embedded store is the reference: find_path must give the
// same path on both stores).
func TestCatalogShortestPathIsMemstores(t *testing.T) {
	ctx := context.Background()
	check := func(name string, adj map[string][]string) {
		t.Helper()
		mem := memstore.New()
		var notes []core.Note
		rows := map[string]*catalogRow{}
		for _, id := range slices.Sorted(maps.Keys(adj)) {
			n := core.Note{ID: id, Title: keyFor(id), Hash: "h"}
			for _, target := range adj[id] {
				n.Links = append(n.Links, core.Link{Raw: "[[" + keyFor(target) + "]]", Key: keyFor(target), Target: target})
			}
			notes = append(notes, n)
			rows[id] = &catalogRow{title: n.Title, out: adj[id]}
		}
		require.NoError(t, mem.UpsertNotes(ctx, "p", notes))
		cat := linkedCatalogOf(1, rows)
		ids := slices.Sorted(maps.Keys(adj))
		for _, from := range ids {
			for _, to := range append(ids, "missing.md") {
				if from == to {
					continue
				}
				want, err := mem.ShortestPath(ctx, "p", from, to)
				require.NoError(t, err)
				require.Equal(t, want, cat.shortestPath(cat.links, from, to), "%s: %s → %s", name, from, to)
			}
		}
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 20 {
		adj := map[string][]string{}
		n := 10 + rng.IntN(30)
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("%c%02d.md", 'a'+rng.IntN(6), i)
		}
		for _, id := range ids {
			adj[id] = nil
			for range rng.IntN(5) {
				adj[id] = append(adj[id], ids[rng.IntN(n)])
			}
		}
		check(fmt.Sprintf("random %d", round), adj)
	}
	// s → 4 layers of 5 notes → t, every note linking to every note of the
	// next layer but each layer's first: 5^4 tied paths.
	adj := map[string][]string{"t.md": nil}
	name := func(layer, i int) string { return fmt.Sprintf("%c%d.md", 'a'+i, layer) }
	for i := range 5 {
		adj["s.md"] = append(adj["s.md"], name(1, 4-i))
	}
	for l := 1; l <= 4; l++ {
		for i := range 5 {
			id := name(l, i)
			adj[id] = nil
			if i == 0 {
				continue
			}
			for j := range 5 {
				if l == 4 {
					adj[id] = append(adj[id], "t.md")
					break
				}
				adj[id] = append(adj[id], name(l+1, j))
			}
		}
		adj[name(l, 4)] = append(adj[name(l, 4)], "s.md")
	}
	check("layers", adj)
}
