package memstore

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// deferredNotes are n notes with texts of a few shared words and links
// among them, the i-th with generation gen's text.
func deferredNotes(n, gen int) []core.Note {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(gen)))
	notes := make([]core.Note, n)
	for i := range notes {
		text := randomText(rng, 3+rng.IntN(30)) + fmt.Sprintf("word%d gen%d", i, gen)
		notes[i] = core.Note{
			ID: fmt.Sprintf("n%05d.md", i), Title: fmt.Sprintf("Note %d", i), Content: text,
			Keys: []string{fmt.Sprintf("note %d", i)}, Hash: fmt.Sprintf("h%d-%d", i, gen),
		}
		for range rng.IntN(4) {
			t := rng.IntN(n)
			notes[i].Links = append(notes[i].Links, core.Link{Raw: fmt.Sprintf("[[Note %d]]", t), Key: fmt.Sprintf("note %d", t)})
		}
	}
	return notes
}

// bucketsOf returns every key and value of the project's note, body and
// keyword buckets.
func bucketsOf(t *testing.T, s *Store, project string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := s.kv.View(func(tx *kv.Tx) error {
		for _, b := range []string{notesBucket(project), bodiesBucket(project), kwDocsBucket(project), kwTermsBucket(project)} {
			err := tx.ForEachRaw(b, func(k, v []byte) error {
				out[b+"/"+string(k)] = string(v)
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// TestDeferredKeywordPostings: a store that defers its keyword postings
// (a one-shot sync) writes exactly the records, bodies, term vectors and
// dictionary of one that does not, through a staged write in parts,
// replacements and deletions, keeps no postings meanwhile, and answers
// keyword searches exactly as it, built at the first search, through
// writes after it and after a restart; a postings build whose read
// fails leaves the index deferred and is done again by the next search.
func TestDeferredKeywordPostings(t *testing.T) {
	ctx := t.Context()
	plainDir, deferredDir := t.TempDir(), t.TempDir()
	plain, err := Open(plainDir)
	require.NoError(t, err)
	deferred, err := Open(deferredDir)
	require.NoError(t, err)
	deferred.DeferKeywordPostings()
	both := func(fn func(s *Store) error) {
		t.Helper()
		require.NoError(t, fn(plain))
		require.NoError(t, fn(deferred))
	}

	const n = 3000
	first := deferredNotes(n, 0)
	for start := 0; start < n; start += 700 { // parts, as a streaming first sync writes them
		part := first[start:min(start+700, n)]
		both(func(s *Store) error { return s.UpsertNotesStaged(ctx, "p", part, nil) })
	}
	second := deferredNotes(n, 1)
	both(func(s *Store) error { return s.UpsertNotes(ctx, "p", second[100:400]) })
	both(func(s *Store) error {
		_, err := s.DeleteNotes(ctx, "p", []string{"n00007.md", "n00500.md", "n02999.md"})
		return err
	})

	g, err := deferred.graph("p")
	require.NoError(t, err)
	g.mu.RLock()
	x := g.search.keywords
	require.True(t, x.deferred)
	require.Zero(t, x.live, "no postings while deferred")
	require.Empty(t, x.held, "every held vector let go of once committed")
	g.mu.RUnlock()
	require.Equal(t, bucketsOf(t, plain, "p"), bucketsOf(t, deferred, "p"), "the disk as without deferring")

	queries := []string{"alpha", "café", "ünïcode delta", "2024 graph", "gen1", "word7", "word150 gen0", "note"}
	same := func(what string) {
		t.Helper()
		requireSameKeywordSearches(t, plain, deferred, queries, 40, what)
	}

	// A failed read leaves the index deferred; the next search builds it.
	readFault := errors.New("disk failed")
	postFault = func() error { return readFault }
	_, err = deferred.KeywordSearch(ctx, "p", "alpha", 10)
	postFault = nil
	require.ErrorIs(t, err, readFault)
	g.mu.RLock()
	require.True(t, x.deferred)
	require.Zero(t, x.live)
	g.mu.RUnlock()

	same("first search")
	g.mu.RLock()
	require.False(t, x.deferred)
	g.mu.RUnlock()

	third := deferredNotes(n, 2)
	both(func(s *Store) error { return s.UpsertNotes(ctx, "p", third[300:700]) })
	both(func(s *Store) error {
		_, err := s.DeleteNotes(ctx, "p", []string{"n00301.md", "n01000.md"})
		return err
	})
	same("written after the first search")
	require.Equal(t, bucketsOf(t, plain, "p"), bucketsOf(t, deferred, "p"))

	// A project loaded from disk never defers: a restart answers alike.
	require.NoError(t, deferred.Close(ctx))
	deferred, err = Open(deferredDir)
	require.NoError(t, err)
	deferred.DeferKeywordPostings()
	same("after a restart")
	both(func(s *Store) error { return s.UpsertNotes(ctx, "p", first[:50]) })
	same("written after a restart")
	require.NoError(t, plain.Close(ctx))
	require.NoError(t, deferred.Close(ctx))
}
