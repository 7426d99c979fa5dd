package memstore

import (
	"bytes"
	"encoding/binary"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
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

// A load's posting lists are each a window of one block at the size the
// first walk counted (no room left over), and hold what lists grown note
// by note hold; a list written after the load grows out of its window
// without touching its neighbours'.
func TestLoadKeywordsReservesThePostings(t *testing.T) {
	ctx, dir := t.Context(), t.TempDir()
	const project = "p"
	s, err := Open(dir)
	require.NoError(t, err)
	require.NoError(t, s.UpsertNotes(ctx, project, deferredNotes(300, 0)))
	require.NoError(t, s.Close(ctx))

	s, err = Open(dir)
	require.NoError(t, err)
	defer s.Close(ctx)
	g, err := s.graph(project)
	require.NoError(t, err)
	<-g.keywordsReady
	g.mu.RLock()
	x := g.search.keywords
	want := newKwIndex()
	for _, name := range x.names {
		want.term(name)
	}
	require.NoError(t, s.kv.View(func(tx *kv.Tx) error {
		return tx.ForEach(kwDocsBucket(project), func(id string, rec []byte) error {
			length, n := binary.Uvarint(rec)
			want.putDoc(kwDoc{id: id, length: int32(length), onDisk: true}, rec[n:])
			return nil
		})
	}))
	require.Equal(t, len(want.post), len(x.post))
	for term := range x.post {
		require.Equal(t, want.post[term], x.post[term], "term %q", x.names[term])
		require.Equal(t, len(x.post[term].data), cap(x.post[term].data), "term %q: room counted exactly", x.names[term])
	}
	before := slices.Clone(x.post)
	kept := make([][]byte, len(before))
	for term, p := range before {
		kept[term] = bytes.Clone(p.data)
	}
	g.mu.RUnlock()

	mem := New()
	require.NoError(t, mem.UpsertNotes(ctx, project, deferredNotes(300, 0)))
	for _, w := range []*Store{s, mem} {
		require.NoError(t, w.UpsertNotes(ctx, project, deferredNotes(300, 1)[:20]))
	}
	g.mu.RLock()
	for term, p := range before {
		require.Equal(t, kept[term], p.data, "term %q: its window was written into", x.names[term])
	}
	g.mu.RUnlock()
	for _, q := range []string{"graph vault", "gen1 word3", "café delta"} {
		got, err := s.KeywordSearch(ctx, project, q, 10)
		require.NoError(t, err)
		want, err := mem.KeywordSearch(ctx, project, q, 10)
		require.NoError(t, err)
		require.Equal(t, want, got, "query %q", q)
	}
}

// A note written while the keyword index loads can number new terms and
// commit its term vector before the load reads that part of kwdocs: the
// load skips the note (its write indexed it) and takes the record for
// sound, never for damage that drops every loaded note from searches.
func TestLoadKeywordsAcceptsTermsNumberedMeanwhile(t *testing.T) {
	ctx, dir := t.Context(), t.TempDir()
	storeLoadWarnNotes(t, dir)
	logs := &logRecorder{}
	s, err := Open(dir, WithLogger(slog.New(logs)))
	require.NoError(t, err)
	defer func() { _ = s.Close(ctx) }()

	var once sync.Once
	var hookErr error
	keywordChunkHook = func() {
		once.Do(func() {
			hookErr = s.UpsertNotes(ctx, "p", []core.Note{
				{ID: "b.md", Path: "b.md", Title: "beta", Content: "capybara", Hash: "5"},
				{ID: "d.md", Path: "d.md", Title: "delta", Content: "quokka walrus", Hash: "4"},
			})
		})
	}
	t.Cleanup(func() { keywordChunkHook = nil })

	ids := func(query string) []string {
		hits, err := s.KeywordSearch(ctx, "p", query, 10) // waits for the load
		require.NoError(t, err)
		out := hitIDs(hits)
		slices.Sort(out)
		return out
	}
	require.Equal(t, []string{"a.md", "d.md"}, ids("walrus"))
	require.NoError(t, hookErr)
	require.Equal(t, []string{"c.md"}, ids("narwhal"), "a note loaded from disk")
	require.Equal(t, []string{"b.md"}, ids("capybara"))
	require.Equal(t, []string{"d.md"}, ids("quokka"))
	require.Empty(t, logs.records(), "no load warning")
}
