package core

import (
	"cmp"
	"math"
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

// MergeSorted merges lists, each ascending by cmp, into one ascending list
// holding each element once (elements that compare equal are one), at most
// limit long (<= 0: no limit). It is the "any of these tags" of both
// stores: one ID-sorted list per tag.
func MergeSorted[T any](lists [][]T, cmp func(a, b T) int, limit int) []T {
	if limit <= 0 {
		limit = math.MaxInt
	}
	var nonEmpty [][]T
	for _, l := range lists {
		if len(l) > 0 {
			nonEmpty = append(nonEmpty, l)
		}
	}
	if len(nonEmpty) == 1 {
		return nonEmpty[0][:min(limit, len(nonEmpty[0]))]
	}
	var out []T
	for len(out) < limit {
		next, found := *new(T), false
		for _, l := range nonEmpty {
			if len(l) > 0 && (!found || cmp(l[0], next) < 0) {
				next, found = l[0], true
			}
		}
		if !found {
			break
		}
		for i := range nonEmpty {
			if len(nonEmpty[i]) > 0 && cmp(nonEmpty[i][0], next) == 0 {
				nonEmpty[i] = nonEmpty[i][1:]
			}
		}
		out = append(out, next)
	}
	return out
}
