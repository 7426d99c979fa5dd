package hybrid_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/hybrid"
)

func list(ids ...string) []core.ScoredID {
	out := make([]core.ScoredID, len(ids))
	for i, id := range ids {
		out[i] = core.ScoredID{ID: id, Score: 1 - float64(i)/10}
	}
	return out
}

func TestRRFFavoursAgreementAndStaysInRange(t *testing.T) {
	got := hybrid.RRF(0, 0, list("a", "b", "c"), list("b", "a", "d"))
	require.Len(t, got, 4)
	assert.Equal(t, []string{"a", "b", "c", "d"}, idsOf(got), "a and b are in both lists; a/b tie broken by id")
	assert.InDelta(t, got[0].Score, got[1].Score, 1e-12)
	for _, h := range got {
		assert.Greater(t, h.Score, 0.0)
		assert.LessOrEqual(t, h.Score, 1.0)
	}

	top := hybrid.RRF(10, 0, list("x", "y"), list("x"))
	assert.InDelta(t, 1.0, top[0].Score, 1e-12, "first in every list scores 1")
}

func TestRRFIgnoresRepeatsAndLimits(t *testing.T) {
	got := hybrid.RRF(60, 2, list("a", "a", "b", "c"))
	assert.Equal(t, []string{"a", "b"}, idsOf(got))
	assert.Nil(t, hybrid.RRF(60, 0))
}

func TestWeightedMixesClampedScores(t *testing.T) {
	vector := []core.ScoredID{{ID: "a", Score: 0.8}, {ID: "b", Score: 0.4}, {ID: "c", Score: -0.3}}
	keyword := []core.ScoredID{{ID: "b", Score: 1.0}, {ID: "d", Score: 0.5}}
	got := hybrid.Weighted(0.5, 0, vector, keyword)
	scores := map[string]float64{}
	for _, h := range got {
		scores[h.ID] = h.Score
	}
	assert.InDelta(t, 0.7, scores["b"], 1e-12)
	assert.InDelta(t, 0.4, scores["a"], 1e-12)
	assert.InDelta(t, 0.25, scores["d"], 1e-12)
	assert.InDelta(t, 0.0, scores["c"], 1e-12, "negative cosine counts as 0")
	assert.Equal(t, []string{"b", "a", "d", "c"}, idsOf(got))

	onlyVector := hybrid.Weighted(1.5, 1, vector, keyword)
	assert.Equal(t, []string{"a"}, idsOf(onlyVector), "weight clamped to 1: keyword ignored")
	assert.InDelta(t, 0.8, onlyVector[0].Score, 1e-12)
}

func idsOf(hits []core.ScoredID) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func TestTieredKeepsEachItemsBetterScore(t *testing.T) {
	best := []core.ScoredID{{ID: "a", Score: 0.9}, {ID: "b", Score: 0.5}}
	fast := []core.ScoredID{{ID: "c", Score: 0.4}, {ID: "b", Score: 0.2}}
	hybrid.Calibrate(fast, func(x float64) float64 { return 2 * x })
	require.Equal(t, []core.ScoredID{{ID: "c", Score: 0.8}, {ID: "b", Score: 0.4}}, fast, "mapped in place")
	require.Equal(t, []core.ScoredID{{ID: "a", Score: 0.9}, {ID: "c", Score: 0.8}, {ID: "b", Score: 0.5}}, hybrid.Tiered(5, best, fast))
	require.Equal(t, []core.ScoredID{{ID: "a", Score: 0.9}, {ID: "c", Score: 0.8}}, hybrid.Tiered(2, best, fast))
	require.Equal(t, best, hybrid.Tiered(5, best, nil), "no fast tier: the best model's hits as they are")
	over := []core.ScoredID{{ID: "x", Score: 0.9}}
	hybrid.Calibrate(over, func(x float64) float64 { return x + 1 })
	require.Equal(t, 1.0, over[0].Score, "clamped to [0, 1]")
}
