package core

import (
	"fmt"
	"math"
	"testing"
)

func TestPageRankScoresNumbersByIDAndIgnoresDuplicates(t *testing.T) {
	// The same graph given in another order, with a duplicate edge, an edge
	// to an unknown ID and a duplicate ID, must rank bit-identically to the
	// graph numbered by ID (a=0, b=1, c=2).
	got := PageRankScores([]string{"c", "a", "b", "a"}, [][2]string{{"c", "a"}, {"b", "a"}, {"b", "a"}, {"a", "b"}, {"a", "zz"}})
	want := PageRank(3, [][2]int{{0, 1}, {1, 0}, {2, 0}})
	for i, id := range []string{"a", "b", "c"} {
		if got[id] != want[i] {
			t.Fatalf("score of %s = %v, want exactly %v", id, got[id], want[i])
		}
	}
	if len(got) != 3 {
		t.Fatalf("want 3 scores, got %v", got)
	}
	if len(PageRankScores(nil, nil)) != 0 {
		t.Fatal("empty graph must give no scores")
	}
}

func TestRankHubsOrdersByScoreThenID(t *testing.T) {
	got := RankHubs(map[string]float64{"b": 1, "a": 1, "c": 2, "d": 0}, 3)
	want := []string{"c", "a", "b"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i].ID != want[i] {
			t.Fatalf("got %v, want order %v", got, want)
		}
	}
	if all := RankHubs(map[string]float64{"x": math.Pi, "y": 0}, 0); len(all) != 2 || all[0].ID != "x" {
		t.Fatalf("limit 0 must return all in order, got %v", all)
	}
}

func TestMergeSorted(t *testing.T) {
	ints := func(a, b int) int { return a - b }
	cases := []struct {
		lists [][]int
		limit int
		want  []int
	}{
		{[][]int{{1, 3, 5}, {2, 3, 6}, nil}, 0, []int{1, 2, 3, 5, 6}},
		{[][]int{{1, 3, 5}, {2, 3, 6}}, 3, []int{1, 2, 3}},
		{[][]int{nil, {4, 7}}, 1, []int{4}},
		{[][]int{nil, {4, 7}}, 0, []int{4, 7}},
		{[][]int{{2}, {2}, {2}}, 0, []int{2}},
		{nil, 0, nil},
	}
	for _, c := range cases {
		got := MergeSorted(c.lists, ints, c.limit)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("MergeSorted(%v, limit %d) = %v, want %v", c.lists, c.limit, got, c.want)
		}
	}
}
