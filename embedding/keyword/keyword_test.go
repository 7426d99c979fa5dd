package keyword_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/embedding/keyword"
)

func ids(t *testing.T, ix *keyword.Index, q string) []string {
	t.Helper()
	var out []string
	for _, h := range ix.Search(q, 10) {
		assert.Greater(t, h.Score, 0.0)
		assert.LessOrEqual(t, h.Score, 1.0)
		out = append(out, h.ID)
	}
	return out
}

func TestSearchRanksRareTermsAndCoverage(t *testing.T) {
	ix := keyword.NewIndex()
	ix.Put("bread.md", "Sourdough bread needs a lively starter and a long cold proof.")
	ix.Put("pizza.md", "Pizza dough: flour, water, salt and a little yeast. Bread flour works.")
	ix.Put("garden.md", "Tomatoes need water every morning in a hot summer.")

	assert.Equal(t, []string{"bread.md"}, ids(t, ix, "sourdough"))
	assert.Equal(t, []string{"bread.md", "pizza.md"}, ids(t, ix, "sourdough bread"), "covering more query terms ranks higher")
	assert.Equal(t, []string{"pizza.md", "garden.md"}, ids(t, ix, "WATER, flour!"), "case and punctuation ignored")
	assert.Empty(t, ids(t, ix, "the and of"), "stop words alone match nothing")
	assert.Empty(t, ids(t, ix, ""))
}

func TestSearchScoresReflectCoverageNotRank(t *testing.T) {
	ix := keyword.NewIndex()
	ix.Put("a.md", "kimchi gochugaru napa cabbage")
	ix.Put("b.md", "cabbage soup")
	for i := range 20 {
		ix.Put(fmt.Sprintf("filler%d.md", i), "unrelated note about something else")
	}
	full := ix.Search("kimchi gochugaru", 1)
	require.Len(t, full, 1)
	assert.InDelta(t, 1.0, full[0].Score, 0.15, "every query term present scores about 1")

	partial := ix.Search("cabbage xylophone", 5)
	require.NotEmpty(t, partial)
	assert.Less(t, partial[0].Score, 0.6, "a query term no note holds caps the score")
}

func TestPutReplacesAndDeleteRemoves(t *testing.T) {
	ix := keyword.NewIndex()
	ix.Put("n.md", "alpha beta")
	ix.Put("m.md", "beta gamma")
	ix.Put("n.md", "delta")
	assert.Empty(t, ids(t, ix, "alpha"), "replaced text is forgotten")
	assert.Equal(t, []string{"n.md"}, ids(t, ix, "delta"))
	ix.Delete("n.md")
	ix.Delete("missing.md")
	assert.Empty(t, ids(t, ix, "delta"))
	assert.Equal(t, 1, ix.Len())
	assert.Equal(t, []string{"m.md"}, ids(t, ix, "beta"))
}

func TestSearchLimitAndTies(t *testing.T) {
	ix := keyword.NewIndex()
	for _, id := range []string{"c.md", "a.md", "b.md"} {
		ix.Put(id, "same words here")
	}
	hits := ix.Search("words", 2)
	require.Len(t, hits, 2)
	assert.Equal(t, "a.md", hits[0].ID, "equal scores by id")
	assert.Equal(t, "b.md", hits[1].ID)
	assert.Nil(t, ix.Search("words", 0))
}

func TestTerms(t *testing.T) {
	assert.Equal(t, []string{"naïve", "café", "2024", "go"}, keyword.Terms("The naïve café, in 2024: Go!"))
}

func TestManyReplacementsKeepScoresExact(t *testing.T) {
	// Replacing and deleting documents (past the point where dead entries
	// are compacted away) must rank exactly as an index built afresh.
	churned, fresh := keyword.NewIndex(), keyword.NewIndex()
	for round := range 5 {
		for i := range 1500 {
			churned.Put(fmt.Sprintf("d%04d", i), fmt.Sprintf("round%d word%d common text %d", round, i%37, i%5))
		}
	}
	for i := range 1500 {
		if i%3 == 0 {
			churned.Delete(fmt.Sprintf("d%04d", i))
			continue
		}
		fresh.Put(fmt.Sprintf("d%04d", i), fmt.Sprintf("round4 word%d common text %d", i%37, i%5))
	}
	require.Equal(t, fresh.Len(), churned.Len())
	for _, q := range []string{"word5 common", "round4", "round3", "text 2 word36", "d0001"} {
		assert.Equal(t, fresh.Search(q, 20), churned.Search(q, 20), "query %q", q)
	}
}
