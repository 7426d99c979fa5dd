package memstore

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// A load reserves the keyword dictionary at its size (the last term's
// number), numbering the terms as they are stored; a damaged last key
// reserves at most maxTermsReserved and fails the load as a key out of
// order does.
func TestLoadTermsReservesTheDictionary(t *testing.T) {
	ctx, dir := t.Context(), t.TempDir()
	const project = "p"
	s, err := Open(dir)
	require.NoError(t, err)
	require.NoError(t, s.UpsertNotes(ctx, project, deferredNotes(50, 0)))
	g, err := s.loadedGraph(project)
	require.NoError(t, err)
	want := append([]string(nil), g.search.keywords.names...)
	require.NotEmpty(t, want)
	require.NoError(t, s.Close(ctx))

	s, err = Open(dir)
	require.NoError(t, err)
	g, err = s.loadedGraph(project)
	require.NoError(t, err)
	g.mu.Lock()
	require.NoError(t, s.ensureTerms(project, g)) // read at the first need, not by the load
	g.mu.Unlock()
	x := g.search.keywords
	require.Equal(t, want, x.names)
	require.Equal(t, len(want), cap(x.names), "reserved at the dictionary's size")
	for i, term := range want {
		require.Equal(t, int32(i), x.terms[term])
	}
	require.NoError(t, s.Close(ctx))

	s, err = Open(dir)
	require.NoError(t, err)
	require.NoError(t, s.kv.Update(func(tx *kv.Tx) error {
		return tx.PutRaw(kwTermsBucket(project), termKey(1<<31), []byte("damaged"))
	}))
	x = newKwIndex()
	require.ErrorIs(t, s.loadTerms(project, x), errBadRecord)
	require.LessOrEqual(t, cap(x.names), maxTermsReserved)
	require.NoError(t, s.Close(ctx))
}
