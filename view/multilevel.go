package view

import (
	"context"
	"math"
	"slices"
)

// A big vault is laid out multilevel (Walshaw 2003; Hu 2005): the graph
// is coarsened by merging each note with a neighbour, level after level,
// down to about coarsestSize groups; the coarsest graph gets a full
// ForceAtlas2 layout, cheap at that size; then each level's notes start
// next to their group's position and are refined by a few iterations.
// The single-level layout spends all its iterations untangling the whole
// graph at full size; here the global shape is found on a small graph
// and the full graph only settles locally. A group's mass is its notes'
// masses summed and a link between groups weighs the links it merges, so
// every level has the equilibrium of the full graph at its own grain.
const (
	multilevelMin = 3000 // below this many notes a single-level layout is fast enough
	coarsestSize  = 800  // coarsening stops at this many groups
	maxGroup      = 4    // a node whose neighbours are all taken joins a neighbour's group only below this size
	maxLevels     = 30
)

// refineIterations is how many iterations a level of n nodes gets after
// its start was placed from the coarser level: few at full size, where
// each iteration is dear and only local order is left to find (at 100k
// notes, 15 give an edge/pair ratio, BenchmarkFullLayout's measure of
// quality, within 0.5% of 25's; 10 are 2% worse).
func refineIterations(n int) int {
	switch {
	case n <= 5000:
		return 60
	case n <= 20000:
		return 40
	case n <= 50000:
		return 25
	default:
		return 15
	}
}

// graphLevel is one level of the hierarchy: its nodes' masses, its
// distinct links (pairs) with their weights, and for each node of the
// finer level below it the group it belongs to here.
type graphLevel struct {
	mass   []float64
	edges  []int32
	weight []float64
	parent []int32 // indexed by the finer level's nodes; nil for the finest level
}

// multilevelLayout lays out x and y (seeded) along the distinct
// undirected edges; false when ctx ended first.
func multilevelLayout(ctx context.Context, x, y []float64, edges []int32) bool {
	n := len(x)
	fine := &graphLevel{mass: make([]float64, n), edges: edges}
	for i := range fine.mass {
		fine.mass[i] = 1
	}
	for e := 0; e < len(edges); e += 2 {
		fine.mass[edges[e]]++
		fine.mass[edges[e+1]]++
	}
	levels := []*graphLevel{fine}
	for len(levels) < maxLevels {
		cur := levels[len(levels)-1]
		if len(cur.mass) <= coarsestSize {
			break
		}
		next := coarsen(cur)
		if float64(len(next.mass)) > 0.8*float64(len(cur.mass)) {
			break // it hardly shrinks any more (a star, a set of lone notes)
		}
		levels = append(levels, next)
	}
	// Every level starts where its notes were seeded: a group at its
	// notes' centre of mass, so the folder arrangement of the seed
	// carries up to the coarsest layout.
	xs, ys := [][]float64{x}, [][]float64{y}
	for k := 1; k < len(levels); k++ {
		lv := levels[k]
		cx, cy := make([]float64, len(lv.mass)), make([]float64, len(lv.mass))
		fm := levels[k-1].mass
		for i, p := range lv.parent {
			cx[p] += xs[k-1][i] * fm[i]
			cy[p] += ys[k-1][i] * fm[i]
		}
		for p := range cx {
			cx[p] /= lv.mass[p]
			cy[p] /= lv.mass[p]
		}
		xs, ys = append(xs, cx), append(ys, cy)
	}
	top := len(levels) - 1
	if !levels[top].layout(xs[top], ys[top]).run(ctx, layoutIterations(len(xs[top]))) {
		return false
	}
	for k := top - 1; k >= 0; k-- {
		parent := levels[k+1].parent
		for i, p := range parent {
			// Near the group's place, spread by a repeatable jitter so
			// that siblings do not start on top of each other.
			jx, jy := indexJitter(i)
			r := math.Sqrt(levels[k].mass[i])
			xs[k][i], ys[k][i] = xs[k+1][p]+jx*r, ys[k+1][p]+jy*r
		}
		if !levels[k].layout(xs[k], ys[k]).run(ctx, refineIterations(len(xs[k]))) {
			return false
		}
	}
	return true
}

func (lv *graphLevel) layout(x, y []float64) *forceLayout {
	n := len(x)
	return &forceLayout{x: x, y: y, mass: lv.mass, edges: lv.edges, weight: lv.weight,
		fx: make([]float64, n), fy: make([]float64, n), px: make([]float64, n), py: make([]float64, n), speed: 1}
}

// coarsen merges the nodes of lv into groups: in ascending mass, each
// node not yet grouped takes its ungrouped neighbour with the strongest
// link for its mass (a matching, so groups of two), else joins the
// smallest neighbouring group of fewer than maxGroup nodes (the many
// one-link notes around a hub), else stays alone. Light nodes go first
// so that hubs are not swallowed by their first neighbour.
func coarsen(lv *graphLevel) *graphLevel {
	n := len(lv.mass)
	// Adjacency in CSR form.
	off := make([]int32, n+1)
	for e := 0; e < len(lv.edges); e += 2 {
		off[lv.edges[e]+1]++
		off[lv.edges[e+1]+1]++
	}
	for i := 0; i < n; i++ {
		off[i+1] += off[i]
	}
	nbr := make([]int32, off[n])
	nw := make([]float64, off[n])
	fill := slices.Clone(off[:n])
	for e := 0; e < len(lv.edges); e += 2 {
		a, b := lv.edges[e], lv.edges[e+1]
		w := 1.0
		if lv.weight != nil {
			w = lv.weight[e/2]
		}
		nbr[fill[a]], nw[fill[a]] = b, w
		fill[a]++
		nbr[fill[b]], nw[fill[b]] = a, w
		fill[b]++
	}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		switch {
		case lv.mass[a] < lv.mass[b]:
			return -1
		case lv.mass[a] > lv.mass[b]:
			return 1
		}
		return 0
	})
	group := make([]int32, n)
	for i := range group {
		group[i] = -1
	}
	var size []int32
	for _, v := range order {
		if group[v] >= 0 {
			continue
		}
		best, bestScore := int32(-1), 0.0
		joinG, joinSize := int32(-1), int32(maxGroup)
		for k := off[v]; k < off[v+1]; k++ {
			u := nbr[k]
			if g := group[u]; g >= 0 {
				if size[g] < joinSize {
					joinG, joinSize = g, size[g]
				}
				continue
			}
			if score := nw[k] / lv.mass[u]; score > bestScore {
				best, bestScore = u, score
			}
		}
		switch {
		case best >= 0:
			g := int32(len(size))
			group[v], group[best] = g, g
			size = append(size, 2)
		case joinG >= 0:
			group[v] = joinG
			size[joinG]++
		default:
			group[v] = int32(len(size))
			size = append(size, 1)
		}
	}
	cn := len(size)
	next := &graphLevel{mass: make([]float64, cn), parent: group}
	for i, g := range group {
		next.mass[g] += lv.mass[i]
	}
	// The links between groups, merged: one pair per two groups, weighing
	// the links it stands for; links inside a group are gone.
	type link struct {
		key uint64 // the two groups, lower first
		w   float64
	}
	links := make([]link, 0, len(lv.edges)/2)
	for e := 0; e < len(lv.edges); e += 2 {
		a, b := group[lv.edges[e]], group[lv.edges[e+1]]
		if a == b {
			continue
		}
		if a > b {
			a, b = b, a
		}
		w := 1.0
		if lv.weight != nil {
			w = lv.weight[e/2]
		}
		links = append(links, link{uint64(a)<<32 | uint64(b), w})
	}
	slices.SortFunc(links, func(p, q link) int {
		switch {
		case p.key < q.key:
			return -1
		case p.key > q.key:
			return 1
		}
		return 0
	})
	for i, l := range links {
		if i > 0 && l.key == links[i-1].key {
			next.weight[len(next.weight)-1] += l.w
			continue
		}
		next.edges = append(next.edges, int32(l.key>>32), int32(l.key&0xffffffff))
		next.weight = append(next.weight, l.w)
	}
	return next
}

// indexJitter is a repeatable pseudo-random pair in [-1, 1) for an index
// (splitmix64).
func indexJitter(i int) (float64, float64) {
	z := uint64(i) + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z&0xffffffff)/float64(1<<31) - 1, float64(z>>32)/float64(1<<31) - 1
}
