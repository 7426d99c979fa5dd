package memstore

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/embedding/keyword"
)

// TestKwIndexScoresAsKeywordIndex: the compact index answers every query
// exactly as keyword.Index, score for score, through puts, replacements
// and deletes that force compactions, whether its notes come analysed by
// keyword.Analyze or by the write's kwCounter (one counter for many notes,
// as a write's workers use it).
func TestKwIndexScoresAsKeywordIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "beta", "gamma", "Delta", "épsilon", "zeta", "eta", "theta", "iota", "kappa", "the", "42", "Alpha", "ÉPSILON", "THE", "Ünïcode", "ünïcode"}
	text := func() string {
		s := ""
		for range 1 + r.IntN(30) {
			s += words[r.IntN(len(words))] + " "
		}
		return s
	}
	want, got, counted := keyword.NewIndex(), newKwIndex(), newKwIndex()
	var counter kwCounter
	queries := []string{"alpha", "beta gamma", "delta épsilon zeta", "the", "unknown alpha", "42 iota", "kappa kappa theta"}
	for step := range 6000 {
		id := fmt.Sprintf("n%d", r.IntN(1500))
		if r.IntN(4) == 0 {
			want.Delete(id)
			got.remove(id)
			counted.remove(id)
		} else {
			title, body := text(), text()
			want.PutAnalyzed(id, keyword.Analyze(title, body))
			got.put(id, keyword.Analyze(title, body))
			var out kwTerms
			counter.add(&out, "ignored", "before")
			counter.add(&out, title, body)
			counted.putTerms(id, nil, nil, 0) // replaced at once
			terms, counts, length := out.note(1)
			counted.putTerms(id, terms, counts, length)
		}
		if step%500 == 499 {
			for _, q := range queries {
				for _, limit := range []int{1, 5, 1000} {
					require.Equal(t, want.Search(q, limit), got.search(q, limit), "step %d query %q limit %d", step, q, limit)
					require.Equal(t, want.Search(q, limit), counted.search(q, limit), "counted: step %d query %q limit %d", step, q, limit)
				}
			}
		}
	}
	require.Equal(t, want.Len(), got.live)
	require.Equal(t, want.Len(), counted.live)
}
