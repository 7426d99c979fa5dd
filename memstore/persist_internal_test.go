package memstore

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// TestAFailedCommitLeavesTheStoreAsTheDiskHasIt: a write whose commit
// fails is refused with a provider error and leaves nothing behind in
// memory (the project is loaded again from the disk); the next write works.
func TestAFailedCommitLeavesTheStoreAsTheDiskHasIt(t *testing.T) {
	for _, staged := range []bool{false, true} {
		ctx := t.Context()
		s, err := Open(t.TempDir())
		require.NoError(t, err)
		a := core.Note{ID: "a.md", Title: "A", Content: "alpha", Hash: "h1", Links: []core.Link{{Raw: "[[b]]", Key: "b"}}}
		require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{a}))

		commitFault = func() error { return errors.New("disk full") }
		b := core.Note{ID: "b.md", Title: "B", Content: "beta", Hash: "h2", Keys: []string{"b"}}
		changed := a
		changed.Content, changed.Hash = "changed", "h3"
		if staged {
			err = s.UpsertNotesStaged(ctx, "p", []core.Note{b, changed}, nil)
		} else {
			err = s.UpsertNotes(ctx, "p", []core.Note{b, changed})
		}
		commitFault = nil
		require.Error(t, err)
		assert.True(t, core.IsProviderError(err), "a provider error: %v", err)

		_, err = s.GetNote(ctx, "p", "b.md")
		assert.ErrorIs(t, err, core.ErrNotFound, "the refused note is not there")
		got, err := s.GetNote(ctx, "p", "a.md")
		require.NoError(t, err)
		assert.Equal(t, "alpha", got.Content)
		assert.Equal(t, "", got.Links[0].Target, "a's link stays unresolved: b was not written")
		hits, err := s.KeywordSearch(ctx, "p", "changed beta", 10)
		require.NoError(t, err)
		assert.Empty(t, hits)

		require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{b}))
		got, err = s.GetNote(ctx, "p", "a.md")
		require.NoError(t, err)
		assert.Equal(t, "b.md", got.Links[0].Target)
		require.NoError(t, s.Close(ctx))
	}
}

// TestRetargetRecord: a record patched with memory's link targets is the
// record of the note with those targets, byte for byte, an unresolved
// link keeping the target its record names (pending), and an unchanged
// one is reported as such.
func TestRetargetRecord(t *testing.T) {
	n := core.Note{ID: "a.md", Title: "A", Path: "A.md", Hash: "h", Size: 12, Tags: []string{"t1", "t2"},
		Links: []core.Link{
			{Raw: "[[b|B]]", Key: "b", Target: "b.md", Alias: "B"},
			{Raw: "![[c#Part]]", Key: "c", Heading: "Part", Embed: true},
			{Raw: "[[d]]", Key: "d", Target: "old/d.md"},
		},
		Entity: &core.NoteEntity{Type: "person"}}
	rec, err := encodeNote(nil, &n)
	require.NoError(t, err)
	b, c := &node{ID: "b.md"}, &node{ID: "c.md"}
	nd := &node{ID: "a.md", links: []link{{key: "b", target: b}, {key: "c", target: c}, {key: "d"}}}

	got, changed, err := retargetRecord(nd, rec)
	require.NoError(t, err)
	assert.True(t, changed)
	want := n
	want.Links = []core.Link{n.Links[0], n.Links[1], n.Links[2]}
	want.Links[1].Target = "c.md"
	wantRec, err := encodeNote(nil, &want)
	require.NoError(t, err)
	assert.Equal(t, wantRec, got)

	again, changed, err := retargetRecord(nd, got)
	require.NoError(t, err)
	assert.False(t, changed)
	assert.Equal(t, got, again)

	_, _, err = retargetRecord(&node{ID: "a.md"}, rec)
	require.ErrorIs(t, err, errBadRecord, "a link count that differs from memory's")
	_, _, err = retargetRecord(nd, rec[:len(rec)/2])
	require.ErrorIs(t, err, errBadRecord, "a cut record")
}

// A written note's term vector leaves memory once its transaction commits
// (kwIndex.stored), and replacing or deleting the note later reads it back
// from kwdocs: keyword scores are then those of a store written with the
// final notes at once, whether the notes came in one call or staged.
func TestWrittenTermVectorsLeaveMemory(t *testing.T) {
	ctx := t.Context()
	note := func(id, content string) core.Note {
		return core.Note{ID: id, Title: strings.ToUpper(id), Content: content, Hash: id + content}
	}
	first := []core.Note{note("a.md", "alpha beta beta"), note("b.md", "beta gamma"), note("c.md", "gamma delta alpha")}
	final := []core.Note{note("a.md", "delta delta epsilon"), note("c.md", "gamma delta alpha")}
	queries := []string{"alpha", "beta", "gamma delta", "epsilon", "a"}
	for _, staged := range []bool{false, true} {
		s, err := Open(t.TempDir())
		require.NoError(t, err)
		if staged {
			require.NoError(t, s.UpsertNotesStaged(ctx, "p", first, nil))
		} else {
			require.NoError(t, s.UpsertNotes(ctx, "p", first))
		}
		g, err := s.graph("p")
		require.NoError(t, err)
		for _, n := range first {
			_, _, held := g.search.keywords.vec(n.ID)
			assert.False(t, held, "%s: the committed vector is not held", n.ID)
		}
		require.NoError(t, s.UpsertNotes(ctx, "p", final[:1]))
		_, err = s.DeleteNotes(ctx, "p", []string{"b.md"})
		require.NoError(t, err)

		want := New()
		require.NoError(t, want.UpsertNotes(ctx, "p", final))
		requireSameKeywordSearches(t, want, s, queries, 10, fmt.Sprintf("staged=%v", staged))
		require.NoError(t, s.Close(ctx))
	}
}

// TestADeletionTakesItsVectorsInOneCommit: a deleted note's vector record
// is deleted in the notes' own transaction, loaded into memory or not: a
// failed commit leaves note and vector both on disk, a good one neither
// (a SIGKILL between two transactions left the vector in the file, held
// parked by every later load).
func TestADeletionTakesItsVectorsInOneCommit(t *testing.T) {
	for _, loaded := range []bool{false, true} {
		ctx := t.Context()
		dir := t.TempDir()
		s, err := Open(dir)
		require.NoError(t, err)
		notes := []core.Note{
			{ID: "a.md", Title: "A", Content: "alpha", Hash: "ha"},
			{ID: "b.md", Title: "B", Content: "beta", Hash: "hb"},
		}
		require.NoError(t, s.UpsertNotes(ctx, "p", notes))
		require.NoError(t, s.SetNoteVectors(ctx, "p", "m", []core.NoteVector{
			{ID: "a.md", Hash: "ha", Vector: []float32{1, 0}},
			{ID: "b.md", Hash: "hb", Vector: []float32{0, 1}},
		}))
		require.NoError(t, s.Close(ctx))
		s, err = Open(dir)
		require.NoError(t, err)
		s.LoadSearchOnUse()
		if loaded {
			_, err = s.VectorSearch(ctx, "p", "m", []float32{1, 0}, 2) // loads the vectors
			require.NoError(t, err)
		}
		onDisk := func() (notes, vectors int) {
			require.NoError(t, s.kv.View(func(tx *kv.Tx) error {
				if tx.GetRaw(notesBucket("p"), "a.md") != nil {
					notes++
				}
				if tx.GetRaw(vectorBucketPrefix+"p", "a.md") != nil {
					vectors++
				}
				return nil
			}))
			return notes, vectors
		}

		commitFault = func() error { return errors.New("disk full") }
		_, err = s.DeleteNotes(ctx, "p", []string{"a.md"})
		commitFault = nil
		require.Error(t, err)
		n, v := onDisk()
		assert.Equal(t, [2]int{1, 1}, [2]int{n, v}, "loaded=%v: a failed deletion keeps the note and its vector", loaded)

		version := func() (v uint64) {
			require.NoError(t, s.kv.View(func(tx *kv.Tx) error { v = tx.Version(); return nil }))
			return v
		}
		before := version()
		_, err = s.DeleteNotes(ctx, "p", []string{"a.md"})
		require.NoError(t, err)
		assert.Equal(t, before+1, version(), "loaded=%v: one commit", loaded)
		n, v = onDisk()
		assert.Equal(t, [2]int{0, 0}, [2]int{n, v}, "loaded=%v: a deletion takes the note and its vector", loaded)
		hits, err := s.VectorSearch(ctx, "p", "m", []float32{1, 0}, 2)
		require.NoError(t, err)
		require.Len(t, hits, 1)
		assert.Equal(t, "b.md", hits[0].ID)
		require.NoError(t, s.Close(ctx))
	}
}
