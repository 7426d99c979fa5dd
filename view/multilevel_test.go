package view

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// communities is a graph of k communities of size notes each: about 6
// links a note inside its community, one in twenty to another community,
// the notes' folders unrelated to their community (so the seed, which
// groups by folder, does not give the answer away).
func communities(k, size int) map[string]*node {
	r := rand.New(rand.NewPCG(5, 6))
	nodes := map[string]*node{}
	id := func(c, i int) string { return fmt.Sprintf("f%02d/c%02d-%05d.md", i%7, c, i) }
	for c := range k {
		for i := range size {
			nd := &node{ID: id(c, i), Path: id(c, i), Title: "t", Hash: "h"}
			for range 3 {
				nd.Out = append(nd.Out, id(c, r.IntN(size)))
			}
			if r.IntN(20) == 0 {
				nd.Out = append(nd.Out, id(r.IntN(k), r.IntN(size)))
			}
			nodes[nd.ID] = nd
		}
	}
	return nodes
}

func TestMultilevelLayoutKeepsCommunitiesApart(t *testing.T) {
	// 12 communities of 400 notes (4,800: the multilevel path): after the
	// layout every position is finite and nearly every note is nearer
	// its own community's centre than any other's.
	const k, size = 12, 400
	nodes := communities(k, size)
	s := buildSnapshot(1, nodes)
	if len(s.nodes) <= multilevelMin {
		t.Fatalf("%d notes do not take the multilevel path (above %d)", len(s.nodes), multilevelMin)
	}
	x, y := layOut(t, s)
	community := func(id string) int {
		var c, i int
		fmt.Sscanf(id[4:], "c%02d-%05d", &c, &i)
		return c
	}
	var cx, cy [k]float64
	for i, n := range s.nodes {
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) || math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			t.Fatalf("%s at (%v, %v)", n.ID, x[i], y[i])
		}
		cx[community(n.ID)] += x[i] / size
		cy[community(n.ID)] += y[i] / size
	}
	wrong := 0
	for i, n := range s.nodes {
		own := community(n.ID)
		d := math.Hypot(x[i]-cx[own], y[i]-cy[own])
		for c := range k {
			if c != own && math.Hypot(x[i]-cx[c], y[i]-cy[c]) < d {
				wrong++
				break
			}
		}
	}
	if wrong > len(s.nodes)/20 {
		t.Errorf("%d of %d notes are nearer another community's centre than their own", wrong, len(s.nodes))
	}
	t.Logf("%d of %d notes nearer another community's centre; edge/pair %.3f", wrong, len(s.nodes), edgePairRatio(x, y, s.edges))
}

func TestCoarsenGroupsEveryNode(t *testing.T) {
	// A star of 50 leaves and a path of 10: every node has a group, masses
	// and link weights add up, no group links to itself.
	var edges []int32
	for i := int32(1); i <= 50; i++ {
		edges = append(edges, 0, i)
	}
	for i := int32(51); i < 60; i++ {
		edges = append(edges, i, i+1)
	}
	edges = append(edges, 0, 51)
	edges = distinctUndirected(edges)
	lv := &graphLevel{mass: make([]float64, 61), edges: edges}
	for i := range lv.mass {
		lv.mass[i] = 1
	}
	for e := 0; e < len(edges); e += 2 {
		lv.mass[edges[e]]++
		lv.mass[edges[e+1]]++
	}
	next := coarsen(lv)
	if len(next.parent) != 61 {
		t.Fatalf("%d parents for 61 nodes", len(next.parent))
	}
	if len(next.mass) >= 61 || len(next.mass) < 61/maxGroup {
		t.Errorf("%d groups for 61 nodes", len(next.mass))
	}
	total, coarse := 0.0, 0.0
	for _, m := range lv.mass {
		total += m
	}
	for _, m := range next.mass {
		coarse += m
	}
	if total != coarse {
		t.Errorf("mass %v became %v", total, coarse)
	}
	inside := 0.0
	for e := 0; e < len(edges); e += 2 {
		if next.parent[edges[e]] == next.parent[edges[e+1]] {
			inside++
		}
	}
	w := 0.0
	for e := 0; e < len(next.edges); e += 2 {
		if next.edges[e] == next.edges[e+1] {
			t.Errorf("group %d links to itself", next.edges[e])
		}
		w += next.weight[e/2]
	}
	if w+inside != float64(len(edges)/2) {
		t.Errorf("links between groups weigh %v, inside %v, of %d links", w, inside, len(edges)/2)
	}
}
