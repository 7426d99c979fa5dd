// Package hybrid fuses ranked result lists, such as a vector search and a
// keyword search over the same notes, into one ranking whose scores stay in
// [0, 1], higher is better (core.ScoredID's contract).
//
// It depends on core only, so a store or a core service can use it, or copy
// it, without pulling in an embedding provider.
package hybrid

import (
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
)

// DefaultVectorWeight is the share of the vector score in Weighted fusion.
// On embedding/testdata/eval.json (paraphrasing and exact-term queries
// over 100 notes) 0.7 gave the best recall@5 and MRR of 0.3..0.7; it is
// also close to the 0.75 other hybrid search engines default to.
const DefaultVectorWeight = 0.7

// DefaultRRFK is the rank offset of reciprocal rank fusion; 60 is the value
// of the original paper (Cormack et al., 2009) and of most search engines.
const DefaultRRFK = 60

// RRF fuses lists by reciprocal rank: an ID scores the sum over lists of
// 1/(k+rank), rank counted from 1, divided by the best possible sum
// (len(lists)/(k+1)) so that an ID ranked first everywhere scores 1. Only
// ranks matter, so lists whose scores live on different scales (cosine
// similarity, BM25) fuse without calibration. k <= 0 means DefaultRRFK.
// It returns up to limit IDs, best first, ties by ID; limit <= 0 means all.
func RRF(k, limit int, lists ...[]core.ScoredID) []core.ScoredID {
	if k <= 0 {
		k = DefaultRRFK
	}
	if len(lists) == 0 {
		return nil
	}
	scores := map[string]float64{}
	for _, list := range lists {
		seen := map[string]bool{}
		rank := 0
		for _, hit := range list {
			if seen[hit.ID] {
				continue // a list names each ID once; later repeats are ignored
			}
			seen[hit.ID] = true
			rank++
			scores[hit.ID] += 1 / float64(k+rank)
		}
	}
	best := float64(len(lists)) / float64(k+1)
	return ranked(scores, best, limit)
}

// Weighted fuses a vector list and a keyword list by a weighted sum of
// their scores, each clamped to [0, 1] first (negative cosine similarity
// counts as 0): score = w*vector + (1-w)*keyword, with w clamped to [0, 1].
// An ID missing from a list scores 0 there. Use it when both lists carry
// scores on comparable scales, e.g. keyword.Index's normalised BM25 and
// cosine similarity. It returns up to limit IDs, best first, ties by ID;
// limit <= 0 means all.
func Weighted(w float64, limit int, vector, keyword []core.ScoredID) []core.ScoredID {
	w = clamp01(w)
	scores := map[string]float64{}
	add := func(list []core.ScoredID, weight float64) {
		seen := map[string]bool{}
		for _, hit := range list {
			if !seen[hit.ID] {
				seen[hit.ID] = true
				scores[hit.ID] += weight * clamp01(hit.Score)
			}
		}
	}
	add(vector, w)
	add(keyword, 1-w)
	return ranked(scores, 1, limit)
}

func ranked(scores map[string]float64, best float64, limit int) []core.ScoredID {
	out := make([]core.ScoredID, 0, len(scores))
	for id, s := range scores {
		out = append(out, core.ScoredID{ID: id, Score: clamp01(s / best)})
	}
	slices.SortFunc(out, func(a, b core.ScoredID) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

func clamp01(x float64) float64 {
	switch {
	case x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}

// Calibrate maps hits' scores through f in place, clamped to [0, 1]: a
// fast tier's cosines onto the scale of the model it stands in for
// (embedding.NewFast's Calibrate).
func Calibrate(hits []core.ScoredID, f func(float64) float64) {
	for i := range hits {
		hits[i].Score = clamp01(f(hits[i].Score))
	}
}

// Tiered is the vector half of a search over items that each have one
// vector, of one of two models: the best model's hits, and the fast
// tier's hits (of the items still waiting for the best model's vector),
// their scores on the best model's scale (Calibrate). An item in both
// lists keeps its better score. It returns the n best, score descending,
// ties by ID. The notes' search (semantic) and the document chunks'
// (docindex) both merge their tiers through it.
func Tiered(n int, best, fast []core.ScoredID) []core.ScoredID {
	if len(fast) == 0 {
		return best
	}
	scores := make(map[string]float64, len(best)+len(fast))
	for _, list := range [][]core.ScoredID{best, fast} {
		for _, h := range list {
			if cur, ok := scores[h.ID]; !ok || h.Score > cur {
				scores[h.ID] = h.Score
			}
		}
	}
	return ranked(scores, 1, n)
}
