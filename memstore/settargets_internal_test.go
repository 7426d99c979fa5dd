package memstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vaultgraph/vaultgraph/core"
)

// TestTargetsFollowLinks: after any sequence of writes and deletes, in
// batches that bring a note's targets before or after it, every note's
// targets are its resolved links' notes, each once, in the order of their
// first link — for notes with few links and with more than smallLinks
// (marked by slot), repeated and unresolved links among them.
func TestTargetsFollowLinks(t *testing.T) {
	ctx := context.Background()
	const project, notes = "p", 120
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 3))
		s := New()
		id := func(i int) string { return fmt.Sprintf("n%03d.md", i) }
		noteOf := func(i int) core.Note {
			n := core.Note{ID: id(i), Path: id(i), Title: id(i), Keys: []string{id(i)[:4]}}
			links := rng.IntN(3 * smallLinks)
			for range links {
				target := fmt.Sprintf("n%03d", rng.IntN(notes+20)) // some never written
				n.Links = append(n.Links, core.Link{Raw: "[[" + target + "]]", Key: target})
			}
			return n
		}
		for round := range 12 {
			var batch []core.Note
			for range 1 + rng.IntN(40) {
				batch = append(batch, noteOf(rng.IntN(notes)))
			}
			if err := s.UpsertNotes(ctx, project, batch); err != nil {
				t.Fatal(err)
			}
			if round%3 == 2 {
				var gone []string
				for range rng.IntN(10) {
					gone = append(gone, id(rng.IntN(notes)))
				}
				if _, err := s.DeleteNotes(ctx, project, gone); err != nil {
					t.Fatal(err)
				}
			}
			g, err := s.graph(project)
			if err != nil {
				t.Fatal(err)
			}
			g.mu.RLock()
			for _, nd := range g.notes {
				var want []*node
				for _, l := range nd.links {
					if l.target != nil && !slices.Contains(want, l.target) {
						want = append(want, l.target)
					}
				}
				if !slices.Equal(nd.targets, want) {
					t.Errorf("seed %d round %d: %s (%d links) has targets %v, want %v", seed, round, nd.ID, len(nd.links), ids(nd.targets), ids(want))
				}
			}
			for _, w := range g.targetSeen {
				if w != 0 {
					t.Fatalf("seed %d round %d: a mark is left in targetSeen", seed, round)
				}
			}
			g.mu.RUnlock()
		}
	}
}
