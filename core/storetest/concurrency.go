package storetest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vaultgraph/vaultgraph/core"
)

// The concurrency case: one writer rewrites a ring of notes generation by
// generation and deletes and restores some of them, while readers call
// every read method and check that each answer is consistent in itself.
// Under -race this also finds unsynchronised access in the store.
const (
	ringSize      = 20
	ringVolatile  = 15   // notes ring[15:] are deleted in odd generations
	ringRounds    = 20   // at least this many generations
	ringMaxRounds = 5000 // at most; the writer goes on until the readers did ringMinReads
	ringMinReads  = 300
	ringReaders   = 3
	ringHub       = "hub.md"
	ringMinInHub  = ringVolatile
	ringMaxInHub  = ringSize
	ringMinNotes  = ringVolatile + 1
	ringMaxNotes  = ringSize + 1
	ringAllTag    = "all"
	ringGenPrefix = "gen "
)

func ringID(i int) string { return fmt.Sprintf("n%02d.md", i%ringSize) }

// ringGeneration writes every field of a ring note from its generation, so
// a reader can tell a torn note from a whole one.
func ringGeneration(gen int) []core.Note {
	notes := make([]core.Note, 0, ringSize+1)
	hub := mkNote(ringHub)
	hub.Content = fmt.Sprintf("%s%d", ringGenPrefix, gen)
	notes = append(notes, hub)
	for i := range ringSize {
		n := mkNote(ringID(i), linkTo(ringHub), linkTo(ringID(i+1)))
		n.Title = fmt.Sprintf("%s %s%d", ringID(i), ringGenPrefix, gen)
		n.Content = fmt.Sprintf("%s%d", ringGenPrefix, gen)
		n.Hash = fmt.Sprint(gen)
		n.Tags = []string{ringAllTag, fmt.Sprintf("gen%d", gen)}
		notes = append(notes, n)
	}
	return notes
}

// checkRingNote returns why n is not a whole ring note of one generation.
func checkRingNote(n core.Note) error {
	if n.ID == ringHub {
		return nil
	}
	gen, ok := strings.CutPrefix(n.Content, ringGenPrefix)
	if !ok {
		return fmt.Errorf("note %s: content %q", n.ID, n.Content)
	}
	if n.Title != n.ID+" "+ringGenPrefix+gen || n.Hash != gen || !slices.Equal(n.Tags, []string{ringAllTag, "gen" + gen}) {
		return fmt.Errorf("note %s is torn: title %q, hash %q, tags %v, content %q", n.ID, n.Title, n.Hash, n.Tags, n.Content)
	}
	if len(n.Links) != 2 || n.Links[0].Target != ringHub || n.Links[1].Key != keyOf(nextRingID(n.ID)) {
		return fmt.Errorf("note %s has links %+v", n.ID, n.Links)
	}
	if t := n.Links[1].Target; t != "" && t != nextRingID(n.ID) {
		return fmt.Errorf("note %s links to %q", n.ID, t)
	}
	return nil
}

func nextRingID(id string) string {
	var i int
	_, _ = fmt.Sscanf(id, "n%02d.md", &i)
	return ringID(i + 1)
}

// checkNeighbors returns why ns is not in the documented order.
func checkNeighbors(ns []core.Neighbor) error {
	seen := map[string]bool{}
	for i, n := range ns {
		if seen[n.Note.ID] {
			return fmt.Errorf("neighbour %s listed twice: %v", n.Note.ID, neighborKeys(ns))
		}
		seen[n.Note.ID] = true
		if i > 0 {
			prev := ns[i-1]
			sameGroup := prev.Direction == n.Direction
			if sameGroup && prev.Note.ID >= n.Note.ID || !sameGroup && !(prev.Direction == core.DirectionOut && n.Direction == core.DirectionIn) {
				return fmt.Errorf("neighbours out of order: %v", neighborKeys(ns))
			}
		}
		if err := checkRingNote(n.Note); err != nil {
			return err
		}
	}
	return nil
}

func between(what string, n, lo, hi int) error {
	if n < lo || n > hi {
		return fmt.Errorf("%s = %d, want %d..%d", what, n, lo, hi)
	}
	return nil
}

// ringRead performs one random read and returns what is inconsistent in it.
func ringRead(e *env, p string, rng *rand.Rand) error {
	ctx, s := e.ctx, e.store
	switch op := rng.IntN(10); op {
	case 0:
		id := ringID(rng.IntN(ringSize))
		n, err := s.GetNote(ctx, p, id)
		if errors.Is(err, core.ErrNotFound) && id >= ringID(ringVolatile) {
			return nil
		}
		if err != nil {
			return err
		}
		return checkRingNote(*n)
	case 1:
		ns, err := s.Neighbors(ctx, p, ringHub, core.DirectionIn, 0)
		if err != nil {
			return err
		}
		if err := between("in-neighbours of the hub", len(ns), ringMinInHub, ringMaxInHub); err != nil {
			return err
		}
		return checkNeighbors(ns)
	case 2:
		ns, err := s.Neighbors(ctx, p, ringID(rng.IntN(ringVolatile)), core.DirectionBoth, 0)
		if err != nil {
			return err
		}
		return checkNeighbors(ns)
	case 3:
		d, err := s.Degree(ctx, p, ringHub)
		if err != nil {
			return err
		}
		return between("in-degree of the hub", d.In, ringMinInHub, ringMaxInHub)
	case 4:
		metric := []core.HubMetric{core.MetricInDegree, core.MetricPageRank}[rng.IntN(2)]
		wctx, warnings := core.WithCallWarnings(ctx)
		hubs, err := s.Hubs(wctx, p, metric, 3)
		if err != nil {
			return err
		}
		if metric == core.MetricPageRank && len(hubs) == 0 && len(warnings.List()) > 0 {
			return nil // no ranking yet, and the answer says so (GraphReader.Hubs)
		}
		if len(hubs) != 3 || hubs[0].ID != ringHub || !slices.IsSortedFunc(hubs, core.CompareHubs) {
			return fmt.Errorf("hubs by %s: %+v", metric, hubs)
		}
	case 5:
		notes, err := s.NotesByTags(ctx, p, []string{ringAllTag}, core.TagModeAny, 100)
		if err != nil {
			return err
		}
		if err := between("notes tagged all", len(notes), ringMinInHub, ringMaxInHub); err != nil {
			return err
		}
		if !slices.IsSorted(noteIDs(notes)) {
			return fmt.Errorf("tagged notes out of order: %v", noteIDs(notes))
		}
		for _, n := range notes {
			if err := checkRingNote(n); err != nil {
				return err
			}
		}
	case 6:
		n, err := s.CountNotes(ctx, p)
		if err != nil {
			return err
		}
		return between("note count", n, ringMinNotes, ringMaxNotes)
	case 7:
		path, err := s.ShortestPath(ctx, p, ringID(0), ringHub)
		if err != nil {
			return err
		}
		if !slices.Equal(path, []string{ringID(0), ringHub}) {
			return fmt.Errorf("path n00 -> hub = %v", path)
		}
	case 8:
		n, err := s.RandomNote(ctx, p, []string{ringAllTag}, func(n int) int { return n / 2 })
		if err != nil {
			return err
		}
		if n == nil {
			return errors.New("random note: nil with candidates")
		}
		return checkRingNote(*n)
	default:
		hashes, err := s.NoteHashes(ctx, p)
		if err != nil {
			return err
		}
		return between("hash count", len(hashes), ringMinNotes, ringMaxNotes)
	}
	return nil
}

var concurrencyCases = []testCase{
	{"readers see consistent answers while a writer upserts and deletes", func(e *env) {
		p := e.project()
		e.upsert(p, ringGeneration(0)...)
		done := make(chan struct{})
		var reads atomic.Int64
		var wg sync.WaitGroup
		for r := range ringReaders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(r), 99))
				for own := 0; ; own++ {
					select {
					case <-done:
						if own > 0 {
							return
						}
					default:
					}
					if err := ringRead(e, p, rng); err != nil {
						e.t.Errorf("reader %d: %v", r, err)
						return
					}
					reads.Add(1)
				}
			}()
		}
		var volatile []string
		for i := ringVolatile; i < ringSize; i++ {
			volatile = append(volatile, ringID(i))
		}
		gen := 1
		for ; (gen <= ringRounds || reads.Load() < ringMinReads) && gen <= ringMaxRounds && !e.t.Failed(); gen++ {
			if err := e.store.UpsertNotes(e.ctx, p, ringGeneration(gen)); err != nil {
				e.t.Errorf("writer: upsert generation %d: %v", gen, err)
				break
			}
			if gen%2 == 1 {
				if _, err := e.store.DeleteNotes(e.ctx, p, volatile); err != nil {
					e.t.Errorf("writer: delete in generation %d: %v", gen, err)
					break
				}
			}
		}
		close(done)
		wg.Wait()
		e.t.Logf("%d generations written while %d reads ran", gen-1, reads.Load())
	}},
}
