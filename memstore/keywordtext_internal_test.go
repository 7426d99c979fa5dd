package memstore

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// randomText is n words, each followed by a space, drawn by rng from a
// small vocabulary of mixed case, accents and a number: what the keyword
// index's tests search for.
func randomText(rng *rand.Rand, n int) string {
	var text strings.Builder
	for range n {
		text.WriteString(testWords[rng.IntN(len(testWords))] + " ")
	}
	return text.String()
}

var testWords = strings.Fields("graph note link vault Alpha beta Gamma delta the and café Ünïcode 2024")

// requireSameKeywordSearches fails unless got answers every query with up
// to limit hits exactly as want does.
func requireSameKeywordSearches(t *testing.T, want, got *Store, queries []string, limit int, what string) {
	t.Helper()
	ctx := t.Context()
	for _, q := range queries {
		exp, err := want.KeywordSearch(ctx, "p", q, limit)
		require.NoError(t, err)
		hits, err := got.KeywordSearch(ctx, "p", q, limit)
		require.NoError(t, err)
		require.Equal(t, exp, hits, "%s: %q", what, q)
	}
}
