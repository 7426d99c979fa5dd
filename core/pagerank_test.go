package core

import (
	"math"
	"testing"
)

func TestPageRankSumsToOneAndRanksHubFirst(t *testing.T) {
	// 1, 2 and 3 all link to 0; 0 links to 1. Node 3 has no in-links.
	edges := [][2]int{{1, 0}, {2, 0}, {3, 0}, {0, 1}}
	r := PageRank(4, edges)
	sum := 0.0
	for _, v := range r {
		sum += v
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Fatalf("ranks sum to %v, want 1", sum)
	}
	if !(r[0] > r[1] && r[1] > r[2] && math.Abs(r[2]-r[3]) < 1e-12) {
		t.Fatalf("unexpected order: %v", r)
	}
}

func TestPageRankDanglingAndEmpty(t *testing.T) {
	if PageRank(0, nil) != nil {
		t.Fatal("empty graph must give nil")
	}
	r := PageRank(3, nil) // no edges: all dangling, uniform
	for _, v := range r {
		if math.Abs(v-1.0/3) > 1e-12 {
			t.Fatalf("want uniform ranks, got %v", r)
		}
	}
}

func TestPageRankSelfLoop(t *testing.T) {
	r := PageRank(2, [][2]int{{0, 0}, {1, 0}})
	if !(r[0] > r[1]) {
		t.Fatalf("self-linked hub must rank first: %v", r)
	}
}
