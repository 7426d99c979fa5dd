package storetest

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

var pathCases = []testCase{
	{"a path follows link direction", func(e *env) {
		p := e.project()
		e.upsert(p, chain("a.md", "b.md", "c.md")...)
		assert.Equal(e.t, []string{"a.md", "b.md", "c.md"}, e.path(p, "a.md", "c.md"))
		assert.Equal(e.t, []string{"b.md", "c.md"}, e.path(p, "b.md", "c.md"))
		assert.Nil(e.t, e.path(p, "c.md", "a.md"), "against the links")
	}},
	{"a path from a note to itself is the note alone", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("a.md"), mkNote("s.md", linkTo("s.md")))
		assert.Equal(e.t, []string{"a.md"}, e.path(p, "a.md", "a.md"))
		assert.Equal(e.t, []string{"s.md"}, e.path(p, "s.md", "s.md"), "a self-link adds no step")
		assert.Nil(e.t, e.path(p, "missing.md", "missing.md"))
	}},
	{"a path with a missing end is nil", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("a.md", ghost("missing")))
		assert.Nil(e.t, e.path(p, "a.md", "missing.md"))
		assert.Nil(e.t, e.path(p, "missing.md", "a.md"))
		assert.Nil(e.t, e.path(e.project(), "a.md", "a.md"), "empty project")
	}},
	{"an unreachable target gives nil", func(e *env) {
		p := e.project()
		e.upsert(p, chain("a.md", "b.md")...)
		e.upsert(p, chain("c.md", "d.md")...)
		assert.Nil(e.t, e.path(p, "a.md", "d.md"))
	}},
	{"the shortest path wins over a longer one", func(e *env) {
		p := e.project()
		e.upsert(p, chain("a.md", "b.md", "c.md", "d.md", "e.md", "f.md")...)
		e.upsert(p, mkNote("b.md", linkTo("c.md"), linkTo("z.md")), mkNote("z.md", linkTo("f.md")))
		assert.Equal(e.t, []string{"a.md", "b.md", "z.md", "f.md"}, e.path(p, "a.md", "f.md"))
	}},
	{"among equal-length paths the lexicographically smallest from the source wins", func(e *env) {
		p := e.project()
		// s→a→y→t and s→b→x→t: from the source a < b decides, even though
		// walking back from the target would prefer x over y.
		e.upsert(p, graphNotes(map[string][]string{
			"s.md": {"b.md", "a.md"}, "a.md": {"y.md"}, "b.md": {"x.md"}, "x.md": {"t.md"}, "y.md": {"t.md"},
		})...)
		assert.Equal(e.t, []string{"s.md", "a.md", "y.md", "t.md"}, e.path(p, "s.md", "t.md"))
	}},
	{"path comparison is element by element, not by joined strings", func(e *env) {
		p := e.project()
		// "p.md" < "p.md copy.md" element-wise, but joined with a separator
		// such as "," the second path would sort first (' ' < ',').
		e.upsert(p, graphNotes(map[string][]string{
			"s.md":         {"p.md copy.md", "p.md"},
			"p.md":         {"z.md"},
			"p.md copy.md": {"a.md"},
			"z.md":         {"t.md"},
			"a.md":         {"t.md"},
		})...)
		assert.Equal(e.t, []string{"s.md", "p.md", "z.md", "t.md"}, e.path(p, "s.md", "t.md"))
	}},
	{"thousands of tied shortest paths give the smallest one", func(e *env) {
		p := e.project()
		// s → 5 layers of 6 notes → t, each note linking to every note of
		// the next layer: 6^5 = 7,776 shortest paths of 6 links. In each
		// layer the note with the smallest ID ("a…") is a dead end and the
		// largest links back to s, so the walk must skip one and not be
		// drawn by the other; the smallest path takes each layer's "b…".
		adj := testLayers(5, 6)
		e.upsert(p, graphNotes(adj)...)
		want := referencePath(adj, "s.md", "t.md")
		require.Len(e.t, want, 7)
		assert.Equal(e.t, []string{"s.md", "b1.md", "b2.md", "b3.md", "b4.md", "b5.md", "t.md"}, want)
		assert.Equal(e.t, want, e.path(p, "s.md", "t.md"))
		assert.Equal(e.t, referencePath(adj, "c2.md", "t.md"), e.path(p, "c2.md", "t.md"))
		assert.Equal(e.t, referencePath(adj, "f3.md", "b2.md"), e.path(p, "f3.md", "b2.md"), "through the link back to s")
	}},
	{"paths do not cross unresolved links or deleted notes", func(e *env) {
		p := e.project()
		e.upsert(p, chain("a.md", "b.md", "c.md")...)
		e.upsert(p, mkNote("a.md", linkTo("b.md"), ghost("c")))
		assert.Equal(e.t, []string{"a.md", "b.md", "c.md"}, e.path(p, "a.md", "c.md"))
		e.delete(p, "b.md")
		assert.Nil(e.t, e.path(p, "a.md", "c.md"))
	}},
	{"paths on random graphs match a reference search", func(e *env) {
		p := e.project()
		rng := rand.New(rand.NewPCG(7, 11))
		adj := randomGraph(rng, 40, 2)
		e.upsert(p, graphNotes(adj)...)
		ids := make([]string, 0, len(adj))
		for id := range adj {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		reachable, unreachable := 0, 0
		for tries := 0; tries < 2000 && (reachable < 80 || unreachable < 10); tries++ {
			from, to := ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))]
			want := referencePath(adj, from, to)
			if want == nil && unreachable >= 10 || want != nil && reachable >= 80 {
				continue
			}
			if want == nil {
				unreachable++
			} else {
				reachable++
			}
			assert.Equal(e.t, want, e.path(p, from, to), "path %s -> %s", from, to)
		}
	}},
	{"paths follow relinks, deletes and re-creations, asked again after each", func(e *env) {
		// Stores that answer paths from a copy of the links kept in
		// process (neo4jstore's catalog) must give the same paths right
		// after each write and once the copy has caught up with it.
		p := e.project()
		rng := rand.New(rand.NewPCG(5, 9))
		written := randomGraph(rng, 30, 2) // what each note's links say
		e.upsert(p, graphNotes(written)...)
		ids := slices.Sorted(maps.Keys(written))
		exists := map[string]bool{}
		for _, id := range ids {
			exists[id] = true
		}
		existing := func() []string {
			return slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return !exists[id] })
		}
		check := func(round int) {
			e.t.Helper()
			adj := map[string][]string{} // the links that resolve
			for _, id := range existing() {
				adj[id] = slices.DeleteFunc(slices.Clone(written[id]), func(t string) bool { return !exists[t] })
			}
			for range 40 {
				from, to := ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))]
				assert.Equal(e.t, referencePath(adj, from, to), e.path(p, from, to), "round %d: %s -> %s", round, from, to)
			}
		}
		relink := func(id string) core.Note {
			live := existing()
			written[id] = nil
			n := mkNote(id)
			for range rng.IntN(5) {
				t := live[rng.IntN(len(live))]
				written[id] = append(written[id], t)
				n.Links = append(n.Links, linkTo(t))
			}
			return n
		}
		check(0)
		for round := 1; round <= 9; round++ {
			live := existing()
			switch round % 3 {
			case 0: // relink three notes
				var notes []core.Note
				for range 3 {
					notes = append(notes, relink(live[rng.IntN(len(live))]))
				}
				e.upsert(p, notes...)
			case 1: // delete two: links to them stop resolving
				gone := []string{live[rng.IntN(len(live))], live[rng.IntN(len(live))]}
				e.delete(p, gone...)
				for _, id := range gone {
					exists[id], written[id] = false, nil
				}
			case 2: // re-create the deleted: the links to them resolve again
				var notes []core.Note
				for _, id := range ids {
					if !exists[id] {
						exists[id] = true
						notes = append(notes, relink(id))
					}
				}
				e.upsert(p, notes...)
			}
			check(round)
			check(round)
		}
	}},
}

// randomGraph makes n notes with random names, each linking to up to
// 2*avgOut random notes (self-links and duplicates included), so that many
// pairs have several shortest paths.
func randomGraph(rng *rand.Rand, n, avgOut int) map[string][]string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%c%02d.md", 'a'+rng.IntN(6), rng.IntN(100))
		for slices.Contains(ids[:i], ids[i]) {
			ids[i] = fmt.Sprintf("%c%02d.md", 'a'+rng.IntN(6), rng.IntN(100))
		}
	}
	adj := make(map[string][]string, n)
	for _, id := range ids {
		adj[id] = nil
		for range rng.IntN(2*avgOut + 1) {
			adj[id] = append(adj[id], ids[rng.IntN(n)])
		}
	}
	return adj
}

// testLayers builds s.md → layers of width notes ("a1.md", "b1.md", … for
// layer 1) → t.md: every note but the layer's first links to every note
// of the next layer (the last layer to t.md), and the layer's last also
// links back to s.md.
func testLayers(layers, width int) map[string][]string {
	name := func(layer, i int) string { return fmt.Sprintf("%c%d.md", 'a'+i, layer) }
	adj := map[string][]string{"t.md": nil}
	for i := range width {
		adj["s.md"] = append(adj["s.md"], name(1, width-1-i)) // written largest first
	}
	for l := 1; l <= layers; l++ {
		for i := range width {
			id := name(l, i)
			adj[id] = nil
			if i == 0 {
				continue // a dead end
			}
			if l == layers {
				adj[id] = []string{"t.md"}
			} else {
				for j := range width {
					adj[id] = append(adj[id], name(l+1, width-1-j))
				}
			}
			if i == width-1 {
				adj[id] = append(adj[id], "s.md")
			}
		}
	}
	return adj
}

// referencePath is the plain definition of ShortestPath: distances to the
// target by a backward search, then from the source always the smallest
// next note that stays on a shortest path.
func referencePath(adj map[string][]string, from, to string) []string {
	if _, ok := adj[from]; !ok {
		return nil
	}
	if _, ok := adj[to]; !ok {
		return nil
	}
	reverse := map[string][]string{}
	for src, dsts := range adj {
		for _, d := range dsts {
			reverse[d] = append(reverse[d], src)
		}
	}
	dist := map[string]int{to: 0}
	queue := []string{to}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, prev := range reverse[cur] {
			if _, seen := dist[prev]; !seen {
				dist[prev] = dist[cur] + 1
				queue = append(queue, prev)
			}
		}
	}
	if _, ok := dist[from]; !ok {
		return nil
	}
	path := []string{from}
	for cur := from; cur != to; {
		next := ""
		for _, d := range adj[cur] {
			if dd, ok := dist[d]; ok && dd == dist[cur]-1 && (next == "" || d < next) {
				next = d
			}
		}
		path = append(path, next)
		cur = next
	}
	return path
}
