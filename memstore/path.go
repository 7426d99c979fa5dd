package memstore

import (
	"context"
)

// ShortestPath returns the lexicographically smallest among the shortest
// paths from source to target that follow link direction; [source] when
// they are equal, nil when either is missing or target is unreachable.
func (s *Store) ShortestPath(ctx context.Context, project, source, target string) ([]string, error) {
	g, unlock, err := s.reader(ctx, "shortest path", project)
	defer unlock()
	if err != nil || g == nil {
		return nil, err
	}
	src, dst := g.notes[source], g.notes[target]
	if src == nil || dst == nil {
		return nil, nil
	}
	if src == dst {
		return []string{source}, nil
	}
	sc := g.getScratch()
	defer g.scratch.Put(sc)
	return shortestPath(sc, src, dst), nil
}

// scratch holds one search's marks, indexed by node slot. A mark is valid
// only when its stamp equals the scratch's current stamp, so starting a
// search is one increment, not a clear of 100k entries.
type scratch struct {
	stamp uint32
	marks []mark
}

type mark struct {
	fwdStamp, bwdStamp, pathStamp uint32
	fwd, bwd                      int32 // distance from the source / to the target
	onPath                        bool  // valid when pathStamp is current, see reaches
}

// getScratch returns a scratch with a fresh stamp and room for every slot.
// Called under g.mu.RLock, so g.slots is stable.
func (g *graph) getScratch() *scratch {
	sc, _ := g.scratch.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	if len(sc.marks) < int(g.slots) {
		sc.marks = make([]mark, g.slots+g.slots/8)
		sc.stamp = 0
	}
	sc.stamp++
	if sc.stamp == 0 { // wrapped: old marks could look current
		clear(sc.marks)
		sc.stamp = 1
	}
	return sc
}

func (sc *scratch) bwd(n *node) (int32, bool) {
	m := &sc.marks[n.slot]
	return m.bwd, m.bwdStamp == sc.stamp
}

// shortestPath searches from both ends, one whole layer at a time, always
// growing the side whose next layer costs fewer edge visits. That keeps
// the search away from the thousands of in-links of a hub, so random
// pairs in a 100k-note vault visit hundreds of notes, not the whole graph.
//
// When a layer first touches the other side, every shortest path has
// length d = a + b (a, b: the depths reached forward and backward), and the
// notes at depth a that touched are the only midpoints. The smallest path
// is then walked from the source, always taking the smallest next note
// that still lies on a shortest path (the greedy choice is exact for
// lexicographic order): before the midpoint that means "reaches a midpoint
// through the forward layers" (see reaches), after it "is d-i steps from
// the target" by the backward distances.
func shortestPath(sc *scratch, src, dst *node) []string {
	sc.marks[src.slot].fwdStamp, sc.marks[src.slot].fwd = sc.stamp, 0
	sc.marks[dst.slot].bwdStamp, sc.marks[dst.slot].bwd = sc.stamp, 0
	fFront, bFront := []*node{src}, []*node{dst}
	a, b := int32(0), int32(0)
	for met := false; !met; {
		if len(fFront) == 0 || len(bFront) == 0 {
			return nil
		}
		if frontierCost(fFront, true) <= frontierCost(bFront, false) {
			a++
			fFront, met = sc.growForward(fFront, a)
		} else {
			b++
			bFront, met = sc.growBackward(bFront, b)
		}
	}
	d := a + b

	path := make([]string, 1, d+1)
	path[0] = src.ID
	cur := src
	for i := int32(1); i <= d; i++ {
		for _, next := range cur.out { // by ID, so the first fit is the smallest
			if i <= a && sc.reaches(next, i, a, b) {
				cur = next
				break
			}
			if dist, ok := sc.bwd(next); i > a && ok && dist == d-i {
				cur = next
				break
			}
		}
		path = append(path, cur.ID)
	}
	return path
}

// reaches reports whether n, if it is at forward depth depth, lies on a
// shortest path: at depth a it must be a midpoint (b steps from the
// target), before that it must link to a note at the next depth that
// reaches. Answers are memoised for the search, so the walk visits each
// forward note at most once, and usually only the few it walks past.
func (sc *scratch) reaches(n *node, depth, a, b int32) bool {
	m := &sc.marks[n.slot]
	if m.fwdStamp != sc.stamp || m.fwd != depth {
		return false
	}
	if m.pathStamp == sc.stamp {
		return m.onPath
	}
	ok := false
	if depth == a {
		ok = m.bwdStamp == sc.stamp && m.bwd == b
	} else {
		for _, next := range n.out {
			if sc.reaches(next, depth+1, a, b) {
				ok = true
				break
			}
		}
	}
	m.pathStamp, m.onPath = sc.stamp, ok
	return ok
}

// frontierCost is the number of edges growing this frontier would visit.
func frontierCost(front []*node, forward bool) int {
	cost := 0
	for _, n := range front {
		if forward {
			cost += len(n.out)
		} else {
			cost += len(n.in)
		}
	}
	return cost
}

// growForward follows out-links from front to the notes first reached at
// depth, and reports whether one of them is known to the backward side.
func (sc *scratch) growForward(front []*node, depth int32) (next []*node, met bool) {
	for _, n := range front {
		for _, m := range n.out {
			mk := &sc.marks[m.slot]
			if mk.fwdStamp == sc.stamp {
				continue
			}
			mk.fwdStamp, mk.fwd = sc.stamp, depth
			next = append(next, m)
			met = met || mk.bwdStamp == sc.stamp
		}
	}
	return next, met
}

// growBackward is growForward along in-links.
func (sc *scratch) growBackward(front []*node, depth int32) (next []*node, met bool) {
	for _, n := range front {
		for _, m := range n.in {
			mk := &sc.marks[m.slot]
			if mk.bwdStamp == sc.stamp {
				continue
			}
			mk.bwdStamp, mk.bwd = sc.stamp, depth
			next = append(next, m)
			met = met || mk.fwdStamp == sc.stamp
		}
	}
	return next, met
}
