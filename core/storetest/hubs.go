package storetest

import (
	"math"
	"slices"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// pageRankTolerance bounds the difference between a store's PageRank score
// and core.PageRankScores on the same graph. Stores that feed core.PageRank
// the documented edge order get identical scores; the slack only covers a
// store that sums in another order.
const pageRankTolerance = 1e-9

// hubGraph: in-degree a=4 (with its self-link), b=2, c=1, d=1, e=0, f=0;
// out-degree c=d=e=2, a=b=1, f=0. Duplicates and ghosts must not count.
func hubGraph() map[string][]string {
	return map[string][]string{
		"a.md": {"a.md"},
		"b.md": {"a.md"},
		"c.md": {"a.md", "b.md", "a.md"},
		"d.md": {"a.md", "b.md"},
		"e.md": {"c.md", "d.md"},
		"f.md": nil,
	}
}

// pageRankGraph has chains, a cycle, dangling notes, a self-link and notes
// nobody links to, with no two linked-to notes scoring near-equal (a near
// tie would make the order depend on float summation order).
func pageRankGraph() map[string][]string {
	return map[string][]string{
		"hub.md":     {"a.md", "hub.md"},
		"a.md":       {"hub.md", "b.md"},
		"b.md":       {"hub.md", "c.md", "d.md"},
		"c.md":       {"hub.md"},
		"d.md":       {"e.md"},
		"e.md":       nil,
		"lonely.md":  nil,
		"orphan.md":  {"hub.md", "e.md"},
		"orphan2.md": {"b.md"},
		"z.md":       {"a.md", "orphan.md"},
	}
}

// expectedHubs computes Hubs from an adjacency list by the contract's
// definitions, titled as mkNote titles notes.
func expectedHubs(adj map[string][]string, metric core.HubMetric) []core.Hub {
	ids := make([]string, 0, len(adj))
	var edges [][2]string
	for src, dsts := range adj {
		ids = append(ids, src)
		for _, d := range dsts {
			edges = append(edges, [2]string{src, d})
		}
	}
	var scores map[string]float64
	switch metric {
	case core.MetricPageRank:
		scores = core.PageRankScores(ids, edges)
	default:
		scores = make(map[string]float64, len(ids))
		seen := map[[2]string]bool{}
		for _, id := range ids {
			scores[id] = 0
		}
		for _, e := range edges {
			if seen[e] {
				continue
			}
			seen[e] = true
			if metric == core.MetricInDegree {
				scores[e[1]]++
			} else {
				scores[e[0]]++
			}
		}
	}
	hubs := core.RankHubs(scores, 0)
	for i := range hubs {
		hubs[i].Title = "Title " + hubs[i].ID
	}
	return hubs
}

// sameHubs compares hubs by ID order, title and score (PageRank within
// pageRankTolerance, degrees exactly).
func (e *env) sameHubs(want, got []core.Hub, msg string) {
	e.t.Helper()
	if !assert.Equal(e.t, hubIDs(want), hubIDs(got), msg) {
		return
	}
	for i := range want {
		assert.Equal(e.t, want[i].Title, got[i].Title, "%s: title of %s", msg, want[i].ID)
		assert.InDelta(e.t, want[i].Score, got[i].Score, pageRankTolerance, "%s: score of %s", msg, want[i].ID)
	}
}

// requireNoNearTies guards a fixture: PageRank scores of different notes
// must be exactly equal or clearly apart.
func requireNoNearTies(e *env, hubs []core.Hub) {
	e.t.Helper()
	for i := 1; i < len(hubs); i++ {
		d := math.Abs(hubs[i-1].Score - hubs[i].Score)
		require.True(e.t, d == 0 || d > 1e3*pageRankTolerance, "fixture has a near tie: %v and %v", hubs[i-1], hubs[i])
	}
}

var hubCases = []testCase{
	{"hubs by in_degree come by score descending then ID ascending", func(e *env) {
		p := e.project()
		e.upsert(p, graphNotes(hubGraph())...)
		e.upsert(p, mkNote("e.md", linkTo("c.md"), ghost("nowhere"), linkTo("d.md")))
		got := e.hubs(p, core.MetricInDegree, 4)
		assert.Equal(e.t, []core.Hub{
			{ID: "a.md", Title: "Title a.md", Score: 4},
			{ID: "b.md", Title: "Title b.md", Score: 2},
			{ID: "c.md", Title: "Title c.md", Score: 1},
			{ID: "d.md", Title: "Title d.md", Score: 1},
		}, got)
	}},
	{"hubs by out_degree come by score descending then ID ascending", func(e *env) {
		p := e.project()
		e.upsert(p, graphNotes(hubGraph())...)
		assert.Equal(e.t, []string{"c.md", "d.md", "e.md"}, hubIDs(e.hubs(p, core.MetricOutDegree, 3)))
		e.sameHubs(expectedHubs(hubGraph(), core.MetricOutDegree), e.hubs(p, core.MetricOutDegree, 100), "out_degree")
	}},
	{"notes scoring zero fill up the list by ID ascending", func(e *env) {
		p := e.project()
		e.upsert(p, graphNotes(hubGraph())...)
		got := e.hubs(p, core.MetricInDegree, 100)
		assert.Equal(e.t, []string{"a.md", "b.md", "c.md", "d.md", "e.md", "f.md"}, hubIDs(got))
		assert.Equal(e.t, []float64{4, 2, 1, 1, 0, 0}, []float64{got[0].Score, got[1].Score, got[2].Score, got[3].Score, got[4].Score, got[5].Score})
		assert.Equal(e.t, []string{"a.md", "b.md", "c.md", "d.md", "e.md"}, hubIDs(e.hubs(p, core.MetricInDegree, 5)))

		q := e.project()
		e.upsert(q, mkNote("c.md"), mkNote("a.md"), mkNote("b.md"))
		assert.Equal(e.t, []string{"a.md", "b.md"}, hubIDs(e.hubs(q, core.MetricOutDegree, 2)), "no links at all")
	}},
	{"pagerank hubs equal core.PageRank over the graph numbered by ID", func(e *env) {
		p := e.project()
		e.upsert(p, graphNotes(pageRankGraph())...)
		e.upsert(p, mkNote("d.md", linkTo("e.md"), ghost("nowhere"), linkTo("e.md")))
		want := expectedHubs(pageRankGraph(), core.MetricPageRank)
		requireNoNearTies(e, want)
		got := e.hubs(p, core.MetricPageRank, 100)
		e.sameHubs(want, got, "pagerank")
		sum := 0.0
		for _, h := range got {
			sum += h.Score
		}
		assert.InDelta(e.t, 1, sum, 1e-9, "scores over all notes sum to 1")
		e.sameHubs(want[:3], e.hubs(p, core.MetricPageRank, 3), "pagerank top 3")
	}},
	{"hubs follow every change to the graph", func(e *env) {
		p := e.project()
		adj := pageRankGraph()
		e.upsert(p, graphNotes(adj)...)
		metrics := []core.HubMetric{core.MetricInDegree, core.MetricOutDegree, core.MetricPageRank}
		check := func(step string) {
			e.t.Helper()
			for _, m := range metrics {
				e.sameHubs(expectedHubs(adj, m), e.hubs(p, m, 100), step+", "+string(m))
			}
		}
		check("initial")

		adj["lonely.md"] = []string{"e.md", "c.md"}
		adj["new.md"] = []string{"lonely.md"}
		e.upsert(p, mkNote("lonely.md", linkTo("e.md"), linkTo("c.md")), mkNote("new.md", linkTo("lonely.md")))
		check("after adding links and a note")

		delete(adj, "hub.md")
		for id, dsts := range adj {
			adj[id] = slices.DeleteFunc(dsts, func(d string) bool { return d == "hub.md" })
		}
		e.delete(p, "hub.md")
		check("after deleting the hub")

		renamed := mkNote("e.md")
		renamed.Title = "A new title"
		e.upsert(p, renamed)
		for _, h := range e.hubs(p, core.MetricInDegree, 100) {
			if h.ID == "e.md" {
				assert.Equal(e.t, "A new title", h.Title, "hub titles are current")
			}
		}
	}},
	{"hubs of an empty project are empty", func(e *env) {
		p := e.project()
		for _, m := range []core.HubMetric{core.MetricInDegree, core.MetricOutDegree, core.MetricPageRank} {
			assert.Empty(e.t, e.hubs(p, m, 10), m)
		}
	}},
}
