package memstore

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// A restart's load leaves the keyword dictionary on disk; a write that
// comes first reads it before numbering a term, so the terms it adds get
// numbers of their own, and keyword searches answer alike before and
// after the next restart.
func TestKeywordTermsReadOnFirstNeed(t *testing.T) {
	ctx, dir := t.Context(), t.TempDir()
	s, err := Open(dir)
	require.NoError(t, err)
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{
		{ID: "a.md", Path: "a.md", Title: "alpha", Content: "shared walrus", Hash: "1"},
		{ID: "b.md", Path: "b.md", Title: "beta", Content: "shared otter", Hash: "2"},
	}))
	require.NoError(t, s.Close(ctx))

	s, err = Open(dir)
	require.NoError(t, err)
	require.NoError(t, s.NoteStates(ctx, "p", func(core.NoteState) error { return nil }))
	g := s.projects["p"]
	require.True(t, g.termsOnDisk, "a restart's load reads no term")
	require.Empty(t, g.search.keywords.names)
	// A write before anything else read the dictionary: new and known terms.
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{
		{ID: "c.md", Path: "c.md", Title: "gamma", Content: "walrus narwhal", Hash: "3"},
	}))
	require.False(t, g.termsOnDisk)
	search := func() map[string][]core.ScoredID {
		out := map[string][]core.ScoredID{}
		for _, q := range []string{"walrus", "narwhal", "otter", "shared", "gamma"} {
			hits, err := s.KeywordSearch(ctx, "p", q, 10)
			require.NoError(t, err)
			out[q] = hits
		}
		return out
	}
	before := search()
	require.Len(t, before["walrus"], 2)
	require.Len(t, before["narwhal"], 1)
	require.Len(t, before["shared"], 2)
	require.NoError(t, s.Close(ctx))

	s, err = Open(dir)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close(ctx)) }()
	require.Equal(t, before, search())
}

// A damaged dictionary fails neither the reads nor the writes that would
// number terms: the first to meet it drops it with the term vectors, and
// every note's text is analysed again.
func TestDamagedKeywordTermsFailNothing(t *testing.T) {
	ctx, dir := t.Context(), t.TempDir()
	s, err := Open(dir)
	require.NoError(t, err)
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{
		{ID: "a.md", Path: "a.md", Title: "alpha", Content: "walrus", Hash: "1",
			Links: []core.Link{{Raw: "[[b]]", Key: "b", Target: "b.md"}}},
		{ID: "b.md", Path: "b.md", Title: "beta", Content: "otter", Hash: "2"},
	}))
	require.NoError(t, s.kv.Update(func(tx *kv.Tx) error {
		return tx.PutRaw(kwTermsBucket("p"), termKey(1<<20), []byte("out of order"))
	}))
	require.NoError(t, s.Close(ctx))

	s, err = Open(dir)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close(ctx)) }()
	nb, err := s.Neighbors(ctx, "p", "a.md", core.DirectionOut, 0)
	require.NoError(t, err)
	require.Len(t, nb, 1)
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{{ID: "c.md", Path: "c.md", Title: "gamma", Content: "x", Hash: "3"}}))
	n, err := s.CountNotes(ctx, "p")
	require.NoError(t, err)
	require.Equal(t, 3, n)
	for q, want := range map[string]string{"walrus": "a.md", "otter": "b.md", "gamma": "c.md"} {
		hits, err := s.KeywordSearch(ctx, "p", q, 10)
		require.NoError(t, err)
		require.Len(t, hits, 1, q)
		require.Equal(t, want, hits[0].ID, q)
	}
}
