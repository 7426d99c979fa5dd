package core

import "math"

// PageRank parameters, fixed so that every store ranks alike.
const (
	PageRankDamping    = 0.85
	PageRankMaxIter    = 100
	PageRankTolerance  = 1e-10 // stop when the L1 change of an iteration is below this
	pageRankTeleportIn = 1 - PageRankDamping
)

// PageRank computes PageRank over n nodes numbered 0..n-1 and directed edges
// (src, dst), which must be distinct pairs (duplicates would count twice).
// Mass of nodes without outgoing edges is spread evenly over all nodes, so
// the scores sum to 1. Both stores call this one function on the same edge
// set, so they return the same ranks; the result depends only on the graph
// and on node numbering, and stores number nodes by ID ascending.
func PageRank(n int, edges [][2]int) []float64 {
	if n == 0 {
		return nil
	}
	outDeg := make([]int, n)
	for _, e := range edges {
		outDeg[e[0]]++
	}
	rank := make([]float64, n)
	next := make([]float64, n)
	for i := range rank {
		rank[i] = 1 / float64(n)
	}
	for iter := 0; iter < PageRankMaxIter; iter++ {
		dangling := 0.0
		for i, r := range rank {
			if outDeg[i] == 0 {
				dangling += r
			}
		}
		base := (pageRankTeleportIn + PageRankDamping*dangling) / float64(n)
		for i := range next {
			next[i] = base
		}
		for _, e := range edges {
			next[e[1]] += PageRankDamping * rank[e[0]] / float64(outDeg[e[0]])
		}
		delta := 0.0
		for i := range rank {
			delta += math.Abs(next[i] - rank[i])
		}
		rank, next = next, rank
		if delta < PageRankTolerance {
			break
		}
	}
	return rank
}
