package memstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/vaultgraph/vaultgraph/core"
)

// hubCache is one metric's ranking of every note, valid for one graph
// version. Rankings are rebuilt lazily by the first Hubs call after a
// change, so a burst of writes costs one rebuild, and a Hubs call between
// changes is a slice walk.
type hubCache struct {
	mu      sync.Mutex
	version uint64
	built   bool
	order   []*node   // notes in Hubs order
	scores  []float64 // scores[i] belongs to order[i]
}

// fileCache holds filePositions' answer for one version of the graph.
type fileCache struct {
	mu        sync.Mutex
	version   uint64
	built     bool
	positions []int // never modified, only replaced
}

func hubSlot(m core.HubMetric) int {
	switch m {
	case core.MetricInDegree:
		return 0
	case core.MetricOutDegree:
		return 1
	default:
		return 2
	}
}

// Hubs returns the top limit notes by metric, score descending then ID
// ascending, notes scoring 0 included. limit <= 0 returns every note.
func (s *Store) Hubs(ctx context.Context, project string, metric core.HubMetric, limit int) ([]core.Hub, error) {
	if !metric.Valid() {
		return nil, fmt.Errorf("memstore: hubs: %w", core.InvalidArgument("unknown hub metric %q", metric))
	}
	g, unlock, err := s.reader(ctx, "hubs", project)
	defer unlock()
	if err != nil || g == nil {
		return nil, err
	}
	order, scores := g.ranking(metric)
	if limit <= 0 || limit > len(order) {
		limit = len(order)
	}
	hubs := make([]core.Hub, limit)
	for i, n := range order[:limit] {
		hubs[i] = core.Hub{ID: n.ID, Title: n.Title, Score: scores[i]}
	}
	return hubs, nil
}

// ranking returns the metric's cached ranking, rebuilding it when the graph
// changed since. The caller holds g.mu for reading; the returned slices are
// never modified, only replaced.
func (g *graph) ranking(metric core.HubMetric) ([]*node, []float64) {
	c := &g.hubs[hubSlot(metric)]
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.built && c.version == g.version {
		return c.order, c.scores
	}
	if metric == core.MetricPageRank {
		c.order, c.scores = rankByScore(g.all, g.pageRank())
	} else {
		c.order, c.scores = rankByDegree(g.all, metric)
	}
	c.version, c.built = g.version, true
	return c.order, c.scores
}

// rankByScore orders all (by ID) by score descending; numbers follow IDs,
// so comparing numbers breaks ties by ID.
func rankByScore(all nodeList, byID []float64) ([]*node, []float64) {
	perm := make([]int, len(byID))
	for i := range perm {
		perm[i] = i
	}
	slices.SortFunc(perm, func(a, b int) int { return cmp.Or(cmp.Compare(byID[b], byID[a]), cmp.Compare(a, b)) })
	order, scores := make([]*node, len(perm)), make([]float64, len(perm))
	for i, p := range perm {
		order[i], scores[i] = all[p], byID[p]
	}
	return order, scores
}

// rankByDegree orders all (by ID) by degree descending with a counting
// sort: linear, and stable, so ties stay in ID order. A single edit
// invalidates the ranking, so its rebuild must be cheap.
func rankByDegree(all nodeList, metric core.HubMetric) ([]*node, []float64) {
	degree := func(n *node) int {
		if metric == core.MetricInDegree {
			return len(n.in)
		}
		return len(n.out)
	}
	var counts []int // counts[d]: notes of degree d
	for _, n := range all {
		d := degree(n)
		if d >= len(counts) {
			counts = append(counts, make([]int, d+1-len(counts))...)
		}
		counts[d]++
	}
	start := make([]int, len(counts)) // first position of degree d, highest first
	for d, pos := len(counts)-1, 0; d >= 0; d-- {
		start[d] = pos
		pos += counts[d]
	}
	order, scores := make([]*node, len(all)), make([]float64, len(all))
	for _, n := range all {
		d := degree(n)
		order[start[d]], scores[start[d]] = n, float64(d)
		start[d]++
	}
	return order, scores
}

// pageRank runs core.PageRank with notes numbered by ID ascending and edges
// in (source, target) order, the order core.PageRankScores uses, so scores
// equal the other stores' bit for bit.
func (g *graph) pageRank() []float64 {
	index := make(map[*node]int, len(g.all))
	edgeCount := 0
	for i, n := range g.all {
		index[n] = i
		edgeCount += len(n.out)
	}
	edges := make([][2]int, 0, edgeCount)
	for i, n := range g.all {
		for _, t := range n.out { // by ID, so by number
			edges = append(edges, [2]int{i, index[t]})
		}
	}
	return core.PageRank(len(g.all), edges)
}
