package view

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// syntheticNodes is a vault-shaped graph of n notes: 40 top folders,
// about 7 links a note with targets drawn by preferential attachment (a
// power-law in-degree, as benchgen's vaults and real vaults have), 5%
// of links unresolved.
func syntheticNodes(n int) map[string]*node {
	r := rand.New(rand.NewPCG(1, 2))
	nodes := make(map[string]*node, n)
	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("f%02d/note-%06d.md", i%40, i)
	}
	var targets []int // each note once, plus once per link it received
	for i := range n {
		nd := &node{ID: ids[i], Path: ids[i], Title: ids[i], Hash: "h"}
		if i > 0 {
			for range 1 + r.IntN(13) {
				if r.IntN(20) == 0 {
					nd.Ghosts = append(nd.Ghosts, fmt.Sprintf("missing %d", r.IntN(n)))
					continue
				}
				t := targets[r.IntN(len(targets))]
				nd.Out = append(nd.Out, ids[t])
				targets = append(targets, t)
			}
		}
		targets = append(targets, i)
		nodes[nd.ID] = nd
	}
	return nodes
}

// BenchmarkFullLayout is the first layout of a vault, what vaultgraph
// view runs once and then keeps in its cache: layoutPositions as it is
// (multilevel above multilevelMin notes) and, side by side for an A/B,
// the single-level ForceAtlas2 of layoutIterations(n) iterations over
// every note. edge/pair is the layout's mean link length over the mean
// distance between two notes (lower: linked notes closer together,
// relative to the drawing's size).
func BenchmarkFullLayout(b *testing.B) {
	for _, n := range []int{6500, 100000} {
		nodes := syntheticNodes(n)
		for _, method := range []string{"single", "multilevel"} {
			b.Run(fmt.Sprintf("notes=%d/%s", n, method), func(b *testing.B) {
				var x, y []float64
				var s *snapshot
				for b.Loop() {
					for _, nd := range nodes {
						nd.Placed = false
					}
					s = buildSnapshot(1, nodes)
					seedPositions(s)
					x, y = make([]float64, n), make([]float64, n)
					for i, nd := range s.nodes {
						x[i], y[i] = nd.X, nd.Y
					}
					var ok bool
					if method == "single" {
						ok = newForceLayout(x, y, distinctUndirected(s.edges), nil).run(context.Background(), layoutIterations(n))
					} else {
						ok = layoutPositions(context.Background(), x, y, s.edges)
					}
					if !ok {
						b.Fatal("layout did not finish")
					}
				}
				b.ReportMetric(edgePairRatio(x, y, s.edges), "edge/pair")
			})
		}
	}
}

// edgePairRatio is the mean length of the links over the mean distance
// between two notes (a fixed sample of pairs).
func edgePairRatio(x, y []float64, edges []int32) float64 {
	r := rand.New(rand.NewPCG(3, 4))
	edge, pair := 0.0, 0.0
	for e := 0; e < len(edges); e += 2 {
		edge += math.Hypot(x[edges[e]]-x[edges[e+1]], y[edges[e]]-y[edges[e+1]])
	}
	const pairs = 20000
	for range pairs {
		i, j := r.IntN(len(x)), r.IntN(len(x))
		pair += math.Hypot(x[i]-x[j], y[i]-y[j])
	}
	return (edge / float64(len(edges)/2)) / (pair / pairs)
}

// BenchmarkPlaceNewNote is what a new note costs the layout of a laid-out
// vault (its neighbours' centroid, then 60 iterations among fixed
// others): the incremental update.
func BenchmarkPlaceNewNote(b *testing.B) {
	for _, n := range []int{6500, 100000} {
		b.Run(fmt.Sprintf("notes=%d", n), func(b *testing.B) {
			nodes := syntheticNodes(n)
			s := buildSnapshot(1, nodes)
			seedPositions(s)
			all := make([]*node, 0, n)
			for _, nd := range nodes {
				all = append(all, nd)
			}
			fresh := &node{ID: "new.md", Path: "new.md", Out: []string{s.nodes[0].ID, s.nodes[n/2].ID}}
			all = append(all, fresh)
			nodes[fresh.ID] = fresh
			for b.Loop() {
				fresh.Placed = false
				set := map[*node]bool{fresh: true}
				adj := adjacency(nodes, set, nil)
				seedFresh(all, set, adj)
				relaxFresh(all, set, adj, freshIterations)
			}
		})
	}
}

// BenchmarkOverview is what the first page load after a change costs the
// server: the snapshot (degrees, PageRank, folders, tags) and the
// overview's JSON, gzipped (DefaultOverviewMax notes at most).
func BenchmarkOverview(b *testing.B) {
	for _, n := range []int{6500, 100000} {
		b.Run(fmt.Sprintf("notes=%d", n), func(b *testing.B) {
			v := &View{nodes: syntheticNodes(n)}
			s := buildSnapshot(1, v.nodes)
			seedPositions(s)
			var size int
			for b.Loop() {
				v.mu.Lock()
				v.changedLocked()
				v.mu.Unlock()
				size = len(v.overview(DefaultOverviewMax))
			}
			b.ReportMetric(float64(size)/1024, "kB-gzipped")
		})
	}
}
