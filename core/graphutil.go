package core

import (
	"cmp"
	"slices"
)

// PageRankScores runs PageRank over the notes ids and the resolved edges
// between them, the way every store must: nodes numbered by ID ascending,
// each distinct edge once, edges passed to PageRank sorted by (source,
// target) number. Summation order then matches across stores, so two stores
// holding the same graph get bit-identical scores, not just close ones.
// Duplicate IDs and edges count once; an edge naming an ID outside ids is
// ignored. A store that builds its own numbered edge list (memstore) must
// produce exactly this order.
func PageRankScores(ids []string, edges [][2]string) map[string]float64 {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	index := make(map[string]int, len(sorted))
	for i, id := range sorted {
		index[id] = i
	}
	numbered := make([][2]int, 0, len(edges))
	for _, e := range edges {
		src, okSrc := index[e[0]]
		dst, okDst := index[e[1]]
		if okSrc && okDst {
			numbered = append(numbered, [2]int{src, dst})
		}
	}
	slices.SortFunc(numbered, func(a, b [2]int) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
	})
	numbered = slices.Compact(numbered)
	ranks := PageRank(len(sorted), numbered)
	scores := make(map[string]float64, len(sorted))
	for i, id := range sorted {
		scores[id] = ranks[i]
	}
	return scores
}

// CompareHubs orders hubs as GraphReader.Hubs returns them: score
// descending, then ID ascending. It fits slices.SortFunc.
func CompareHubs(a, b Hub) int {
	return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID))
}

// RankHubs returns the top limit entries of scores in Hubs order (see
// CompareHubs); limit <= 0 returns them all. Titles are left empty for the
// caller to fill, since scores carry none.
func RankHubs(scores map[string]float64, limit int) []Hub {
	hubs := make([]Hub, 0, len(scores))
	for id, s := range scores {
		hubs = append(hubs, Hub{ID: id, Score: s})
	}
	slices.SortFunc(hubs, CompareHubs)
	if limit > 0 && len(hubs) > limit {
		hubs = hubs[:limit]
	}
	return hubs
}
