package memstore_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// TestAllTagsIsEveryTagsNotes compares search by tags in mode all with
// the notes found by reading every note's tags (core.TagMatches on each),
// on random notes whose tags nest, repeat in other cases and change:
// the store answers from the notes matching one tag, checking the
// others on each note's own tags.
func TestAllTagsIsEveryTagsNotes(t *testing.T) {
	ctx := t.Context()
	names := []string{"go", "Go/Lang", "go/lang/generics", "golang", "ml", "ML/vision", "lang", "#python", "py", "x/y/z", "x"}
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 7))
		s := memstore.New()
		notes := map[string]core.Note{}
		for round := range 3 {
			var batch []core.Note
			for i := range 200 {
				if round > 0 && r.IntN(3) > 0 {
					continue
				}
				n := note(fmt.Sprintf("n%03d.md", i))
				for range r.IntN(4) {
					n.Tags = append(n.Tags, names[r.IntN(len(names))])
				}
				batch = append(batch, n)
				notes[n.ID] = n
			}
			require.NoError(t, s.UpsertNotes(ctx, "p", batch))
			for range 60 {
				var query []string
				for range 1 + r.IntN(3) {
					query = append(query, names[r.IntN(len(names))])
				}
				limit := []int{1, 5, 20, 0}[r.IntN(4)]
				var want []string
				for _, n := range notes {
					if hasAll(n, query) {
						want = append(want, n.ID)
					}
				}
				slices.Sort(want)
				if limit > 0 && len(want) > limit {
					want = want[:limit]
				}
				got, err := s.NotesByTags(ctx, "p", query, core.TagModeAll, limit)
				require.NoError(t, err)
				ids := []string{}
				for _, n := range got {
					ids = append(ids, n.ID)
				}
				require.Equal(t, append([]string{}, want...), ids, "seed %d round %d: tags %q limit %d", seed, round, query, limit)
			}
		}
	}
}

func hasAll(n core.Note, query []string) bool {
	for _, q := range query {
		if !slices.ContainsFunc(n.Tags, func(tag string) bool { return core.TagMatches(core.NormalizeTag(tag), core.NormalizeTag(q)) }) {
			return false
		}
	}
	return true
}
