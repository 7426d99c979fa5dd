package neo4jstore

import (
	"slices"
	"sync"
)

// links is a catalog's copy of a project's LINKS_TO relationships (a
// note's resolved links, one per pair of notes) as positions in the
// catalog's ids, in both directions: note i links to out[outAt[i]:outAt[i+1]]
// and is linked from in[inAt[i]:inAt[i+1]], each ascending, that is in ID
// order. find_path searches it in process (catalog.shortestPath) instead
// of asking Neo4j for the shortest paths (path_shortest: 1.6-2.7 ms at
// 100k notes against 0.15-0.4 ms for the embedded store's whole call).
//
// Cost: 8 bytes per link and 8 per note in each direction (100k notes,
// 691k links: ~6 MB); a catch-up rebuilds it in O(notes + links).
type links struct {
	outAt, out []int32
	inAt, in   []int32
}

// buildLinks returns the links of n notes from the pairs src[k] → dst[k]
// (positions; repeats allowed, dropped).
func buildLinks(n int, src, dst []int32) *links {
	l := &links{outAt: make([]int32, n+1), inAt: make([]int32, n+1)}
	for _, a := range src {
		l.outAt[a+1]++
	}
	for i := range n {
		l.outAt[i+1] += l.outAt[i]
	}
	out := make([]int32, len(src))
	fill := slices.Clone(l.outAt[:n])
	for k, a := range src {
		out[fill[a]] = dst[k]
		fill[a]++
	}
	// Sort and drop repeats per note, compacting in place.
	w := int32(0)
	for i := range n {
		seg := out[l.outAt[i]:l.outAt[i+1]]
		slices.Sort(seg)
		seg = slices.Compact(seg)
		l.outAt[i] = w
		w += int32(copy(out[w:], seg))
	}
	l.outAt[n] = w
	l.out = slices.Clip(out[:w])
	// Incoming: counted per target, filled in source order, so ascending.
	for _, b := range l.out {
		l.inAt[b+1]++
	}
	for i := range n {
		l.inAt[i+1] += l.inAt[i]
	}
	l.in = make([]int32, len(l.out))
	fill = slices.Clone(l.inAt[:n])
	for a := range n {
		for _, b := range l.out[l.outAt[a]:l.outAt[a+1]] {
			l.in[fill[b]] = int32(a)
			fill[b]++
		}
	}
	return l
}

// from returns the notes note i links to, ascending.
func (l *links) from(i int32) []int32 { return l.out[l.outAt[i]:l.outAt[i+1]] }

// to returns the notes linking to note i, ascending.
func (l *links) to(i int32) []int32 { return l.in[l.inAt[i]:l.inAt[i+1]] }

// apply returns the links of the catalog whose ids are next, made from
// l's catalog by catalog.apply: moved maps l's positions to next's (-1:
// changed or gone), and the changed notes' rows (nil: gone) hold both
// sides of their links. The links between unchanged notes stay; those
// touching a changed note come from its row (an unchanged note's link to
// a changed one from the changed one's in).
func (l *links) apply(next []string, moved []int32, changed map[string]*catalogRow) *links {
	pos := func(id string) (int32, bool) {
		i, ok := slices.BinarySearch(next, id)
		return int32(i), ok
	}
	src := make([]int32, 0, len(l.out)+64)
	dst := make([]int32, 0, len(l.out)+64)
	for a := range int32(len(moved)) {
		na := moved[a]
		if na < 0 {
			continue
		}
		for _, b := range l.from(a) {
			if nb := moved[b]; nb >= 0 {
				src, dst = append(src, na), append(dst, nb)
			}
		}
	}
	for id, row := range changed {
		if row == nil {
			continue
		}
		p, ok := pos(id)
		if !ok {
			continue
		}
		for _, t := range row.out {
			if q, ok := pos(t); ok {
				src, dst = append(src, p), append(dst, q)
			}
		}
		for _, f := range row.in {
			if _, also := changed[f]; also {
				continue // its own row lists the link
			}
			if q, ok := pos(f); ok {
				src, dst = append(src, q), append(dst, p)
			}
		}
	}
	return buildLinks(len(next), src, dst)
}

// distPool recycles shortestPath's distance arrays (400 KB at 100k notes).
var distPool sync.Pool

// shortestPath returns the lexicographically smallest (ID by ID) of the
// shortest paths from note source to note target along link direction,
// nil when there is none or either is not in the catalog; source and
// target differ. It is memstore's search (memstore/path.go): distances to
// the target by a breadth-first search backwards, stopped once the source
// has one (every note nearer the target has its distance then), then from
// the source the smallest next note one step nearer, which the ascending
// lists give first.
func (c *catalog) shortestPath(l *links, source, target string) []string {
	s, okS := slices.BinarySearch(c.ids, source)
	t, okT := slices.BinarySearch(c.ids, target)
	if !okS || !okT {
		return nil
	}
	n := len(c.ids)
	var dist []int32 // distance to the target + 1; 0: not reached
	if p, _ := distPool.Get().(*[]int32); p != nil && len(*p) >= n {
		dist = (*p)[:n]
	} else {
		dist = make([]int32, n)
	}
	var queue []int32
	defer func() {
		for _, v := range queue { // only these were set
			dist[v] = 0
		}
		distPool.Put(&dist)
	}()
	dist[t] = 1
	queue = append(queue, int32(t))
	for head := 0; head < len(queue) && dist[s] == 0; head++ {
		u := queue[head]
		for _, v := range l.to(u) {
			if dist[v] == 0 {
				dist[v] = dist[u] + 1
				queue = append(queue, v)
			}
		}
	}
	if dist[s] == 0 {
		return nil
	}
	path := make([]string, 0, dist[s])
	cur := int32(s)
	path = append(path, c.ids[cur])
	for dist[cur] > 1 {
		next := int32(-1)
		for _, v := range l.from(cur) {
			if dist[v] == dist[cur]-1 {
				next = v
				break
			}
		}
		if next < 0 {
			return nil // cannot happen: both directions hold the same links
		}
		cur = next
		path = append(path, c.ids[cur])
	}
	return path
}
