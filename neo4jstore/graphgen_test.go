package neo4jstore

import (
	"fmt"
	"math/rand/v2"

	"github.com/vaultgraph/vaultgraph/core"
)

// graphSpec describes a random vault for the differential test and the
// benchmarks. The same seed always gives the same notes.
type graphSpec struct {
	notes      int
	seed       uint64
	avgLinks   int     // mean outgoing links per note (geometric-ish spread)
	preferHubs float64 // share of links that pick their target by in-degree (power law)
	selfLinks  float64 // share of notes with a self-link
	ghosts     float64 // share of links left unresolved
	components int     // notes are split into this many disconnected parts
	tags       int     // distinct tags, used with a Zipf-like skew
	content    int     // bytes of content per note
	oddIDs     bool    // sprinkle IDs with non-ASCII characters to test ordering
}

// noteID names note i; odd IDs exercise code-point ordering.
func (g graphSpec) noteID(i int) string {
	if g.oddIDs {
		switch i % 11 {
		case 3:
			return fmt.Sprintf("é/%05d.md", i)
		case 5:
			return fmt.Sprintf("\U0001F600 %05d.md", i)
		case 7:
			return fmt.Sprintf("\uE000%05d.md", i)
		case 9:
			return fmt.Sprintf("Z%05d.md", i) // upper case sorts before lower
		}
	}
	return fmt.Sprintf("n%05d.md", i)
}

func keyFor(id string) string { return id[:len(id)-len(".md")] }

// generate builds the notes. Links point within a note's component; a
// preferential share targets notes that already have many in-links, which
// gives the long-tailed in-degree of real vaults.
func (g graphSpec) generate() []core.Note {
	rng := rand.New(rand.NewPCG(g.seed, g.seed^0x5eed))
	comps := max(g.components, 1)
	notes := make([]core.Note, g.notes)
	// popular holds one entry per in-link per component, so a uniform draw
	// from it picks a target in proportion to its in-degree.
	popular := make([][]int, comps)
	filler := make([]byte, g.content)
	for i := range filler {
		filler[i] = "abcdefghij klmnopqrstuvwxyz"[i%27]
	}
	for i := range notes {
		id := g.noteID(i)
		comp := i % comps
		n := core.Note{
			ID:      id,
			Title:   "Title of " + id,
			Path:    id,
			Content: fmt.Sprintf("Note %d. %s", i, filler),
			Hash:    fmt.Sprintf("h%d", i),
			Keys:    []string{keyFor(id)},
		}
		if g.tags > 0 {
			for range 1 + rng.IntN(3) {
				// Squaring a uniform draw skews towards low tag numbers.
				u := rng.Float64()
				tag := fmt.Sprintf("Tag%d", int(u*u*float64(g.tags)))
				if !n.HasTag(tag) {
					n.Tags = append(n.Tags, tag)
				}
			}
		}
		links := 0
		if g.avgLinks > 0 {
			links = rng.IntN(2*g.avgLinks + 1)
		}
		for range links {
			if rng.Float64() < g.ghosts {
				key := fmt.Sprintf("ghost-%d", rng.IntN(g.notes/10+1))
				n.Links = append(n.Links, core.Link{Raw: "[[" + key + "]]", Key: key})
				continue
			}
			var t int
			if p := popular[comp]; len(p) > 0 && rng.Float64() < g.preferHubs {
				t = p[rng.IntN(len(p))]
			} else {
				t = comp + comps*rng.IntN((g.notes-comp+comps-1)/comps)
			}
			popular[comp] = append(popular[comp], t)
			tid := g.noteID(t)
			n.Links = append(n.Links, core.Link{Raw: "[[" + keyFor(tid) + "]]", Key: keyFor(tid), Target: tid})
		}
		if rng.Float64() < g.selfLinks {
			n.Links = append(n.Links, core.Link{Raw: "[[" + keyFor(id) + "]]", Key: keyFor(id), Target: id})
		}
		notes[i] = n
	}
	return notes
}
