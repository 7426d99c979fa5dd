package memstore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// merge is the heart of every write; check it against a plain set on
// random batches of changes, repeats of one node included.
func TestMergeMatchesASetOnRandomChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pool := make([]*node, 60)
	for i := range pool {
		pool[i] = &node{ID: fmt.Sprintf("n%02d", rng.IntN(1000))}
		for slices.ContainsFunc(pool[:i], func(o *node) bool { return o.ID == pool[i].ID }) {
			pool[i].ID = fmt.Sprintf("n%03d", rng.IntN(1000))
		}
	}
	var l nodeList
	want := map[*node]bool{}
	for round := range 500 {
		var cs []change
		for range rng.IntN(12) {
			n, present := pool[rng.IntN(len(pool))], rng.IntN(3) > 0
			cs = append(cs, change{n, present})
		}
		before := slices.Clone(l)
		changed := l.merge(slices.Clone(cs))
		for _, c := range cs {
			want[c.n] = c.present
		}
		var expect nodeList
		for n, in := range want {
			if in {
				expect = append(expect, n)
			}
		}
		slices.SortFunc(expect, compareNodes)
		if !slices.Equal(l, expect) {
			t.Fatalf("round %d: after %v got %v, want %v", round, cs, ids(l), ids(expect))
		}
		if changed != !slices.Equal(before, l) {
			t.Fatalf("round %d: merge reported changed=%v for %v -> %v", round, changed, ids(before), ids(l))
		}
	}
}

func ids(l nodeList) []string {
	out := make([]string, len(l))
	for i, n := range l {
		out[i] = n.ID
	}
	return out
}

func TestDeletedSlotsAreReused(t *testing.T) {
	g := newGraph()
	a, b := g.newNode(), g.newNode()
	g.freeNode(a)
	c := g.newNode()
	if c.slot != a.slot || b.slot == a.slot || g.slots != 2 {
		t.Fatalf("slots a=%d b=%d c=%d, handed out %d", a.slot, b.slot, c.slot, g.slots)
	}
}
