package memstore

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
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
	// loaded keeps its term vectors "on disk" (putLoaded, read back by
	// readVec); lost cannot read them back, so each remove counts the
	// document frequencies again from the postings.
	loaded, lost := newKwIndex(), newKwIndex()
	disk := map[string][]byte{}
	loaded.readVec = func(id string) ([]byte, error) { return disk[id], nil }
	lost.readVec = func(string) ([]byte, error) { return nil, errors.New("disk failed") }
	putOnDisk := func(x *kwIndex, id string, a keyword.Analysis) {
		x.put(id, a)
		vec, length, ok := x.vec(id)
		require.True(t, ok)
		vec = slices.Clone(vec)
		if x == loaded {
			disk[id] = vec
		}
		x.putLoaded(id, length, vec)
		_, _, held := x.vec(id)
		require.False(t, held, "a loaded vector is not held")
	}
	var counter kwCounter
	queries := []string{"alpha", "beta gamma", "delta épsilon zeta", "the", "unknown alpha", "42 iota", "kappa kappa theta"}
	for step := range 6000 {
		id := fmt.Sprintf("n%d", r.IntN(1500))
		if r.IntN(4) == 0 {
			want.Delete(id)
			got.remove(id)
			counted.remove(id)
			loaded.remove(id)
			lost.remove(id)
			delete(disk, id)
		} else {
			title, body := text(), text()
			want.PutAnalyzed(id, keyword.Analyze(title, body))
			got.put(id, keyword.Analyze(title, body))
			putOnDisk(loaded, id, keyword.Analyze(title, body))
			putOnDisk(lost, id, keyword.Analyze(title, body))
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
					require.Equal(t, want.Search(q, limit), loaded.search(q, limit), "loaded: step %d query %q limit %d", step, q, limit)
					require.Equal(t, want.Search(q, limit), lost.search(q, limit), "lost: step %d query %q limit %d", step, q, limit)
				}
			}
		}
	}
	require.Equal(t, want.Len(), got.live)
	require.Equal(t, want.Len(), counted.live)
	require.Equal(t, want.Len(), loaded.live)
	dfByTerm := func(x *kwIndex) map[string]int32 { // term numbers differ from index to index
		out := map[string]int32{}
		for n, name := range x.names {
			out[name] = x.df[n]
		}
		return out
	}
	require.Equal(t, dfByTerm(got), dfByTerm(loaded))
	require.Equal(t, dfByTerm(got), dfByTerm(lost))
}
