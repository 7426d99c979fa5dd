package memstore_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

func TestVectorsSurviveARestart(t *testing.T) {
	ctx, dir := t.Context(), t.TempDir()
	a := core.Note{ID: "a.md", Title: "A", Hash: "ha"}
	b := core.Note{ID: "b.md", Title: "B", Hash: "hb"}
	gone := core.Note{ID: "gone.md", Title: "Gone", Hash: "hg"}

	s, err := memstore.Open(dir)
	require.NoError(t, err)
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{a, b, gone}))
	require.NoError(t, s.SetNoteVectors(ctx, "p", "m", []core.NoteVector{
		{ID: "a.md", Hash: "ha", Vector: []float32{1, 0}},
		{ID: "b.md", Hash: "hb", Vector: []float32{0, 1}},
		{ID: "gone.md", Hash: "hg", Vector: []float32{1, 1}},
	}))
	_, err = s.DeleteNotes(ctx, "p", []string{"gone.md"})
	require.NoError(t, err)
	require.NoError(t, s.Close(ctx))

	s, err = memstore.Open(dir)
	require.NoError(t, err)
	defer func() { _ = s.Close(ctx) }()
	hits, err := s.VectorSearch(ctx, "p", "m", []float32{1, 0}, 10)
	require.NoError(t, err)
	require.Len(t, hits, 2, "the notes are on disk too: their vectors are searched at once")
	assert.Equal(t, "a.md", hits[0].ID)

	b.Hash = "hb-changed" // edited while the server was down
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{a, b, gone}))
	stale, err := s.StaleVectors(ctx, "p", "m")
	require.NoError(t, err)
	assert.Equal(t, []core.StaleNote{{ID: "b.md", Hash: "hb-changed"}, {ID: "gone.md", Hash: "hg"}}, stale,
		"only the changed note and the one whose vector was deleted need embedding")
	hits, err = s.VectorSearch(ctx, "p", "m", []float32{1, 0}, 10)
	require.NoError(t, err)
	require.Len(t, hits, 2)
	assert.Equal(t, "a.md", hits[0].ID)
	assert.InDelta(t, 1, hits[0].Score, 1e-6)
}

// A large batch analyses its notes' keyword text concurrently before it
// takes the lock; the index must come out the same as from notes written
// one at a time.
func TestKeywordIndexSameForLargeBatchAndSingleWrites(t *testing.T) {
	ctx := t.Context()
	var notes []core.Note
	for i := range 600 {
		notes = append(notes, core.Note{
			ID:      fmt.Sprintf("n%03d.md", i),
			Title:   fmt.Sprintf("Note %d", i),
			Content: fmt.Sprintf("word%d shared text about topic%d and topic%d", i, i%7, i%13),
		})
	}
	batched, single := memstore.New(), memstore.New()
	if err := batched.UpsertNotes(ctx, "p", notes); err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		if err := single.UpsertNotes(ctx, "p", []core.Note{n}); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"word417", "topic3", "shared topic5 topic11", "note 12"} {
		want, err := single.KeywordSearch(ctx, "p", q, 20)
		if err != nil {
			t.Fatal(err)
		}
		got, err := batched.KeywordSearch(ctx, "p", q, 20)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || !reflect.DeepEqual(want, got) {
			t.Errorf("search %q: one batch %v, single writes %v", q, got, want)
		}
	}
}

// Vector records are kept by node slot, and a deleted note's slot goes to
// the next new note: that note must not inherit the deleted one's vector.
func TestNewNoteInAFreedSlotHasNoVector(t *testing.T) {
	ctx := t.Context()
	s := memstore.New()
	a := core.Note{ID: "a.md", Title: "A", Hash: "ha"}
	gone := core.Note{ID: "gone.md", Title: "Gone", Hash: "same"}
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{a, gone}))
	require.NoError(t, s.SetNoteVectors(ctx, "p", "m", []core.NoteVector{
		{ID: "a.md", Hash: "ha", Vector: []float32{1, 0}},
		{ID: "gone.md", Hash: "same", Vector: []float32{0, 1}},
	}))
	_, err := s.DeleteNotes(ctx, "p", []string{"gone.md"})
	require.NoError(t, err)
	// The same hash, so an inherited record would look current.
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{{ID: "new.md", Title: "New", Hash: "same"}}))

	stale, err := s.StaleVectors(ctx, "p", "m")
	require.NoError(t, err)
	assert.Equal(t, []core.StaleNote{{ID: "new.md", Hash: "same"}}, stale)
	hits, err := s.VectorSearch(ctx, "p", "m", []float32{0, 1}, 10)
	require.NoError(t, err)
	require.Len(t, hits, 1, "only a.md has a vector")
	assert.Equal(t, "a.md", hits[0].ID)
}

// A store opened again keeps its notes' keyword term vectors on disk, not
// in memory: replacing and deleting notes after the reopen (enough to
// compact the index) must leave the same scores as a store that held
// every vector all along.
func TestKeywordScoresAfterReopenAsHeldInMemory(t *testing.T) {
	ctx, dir := t.Context(), t.TempDir()
	note := func(i, version int) core.Note {
		return core.Note{ID: fmt.Sprintf("n%04d.md", i), Title: fmt.Sprintf("Note %d", i),
			Content: fmt.Sprintf("word%d topic%d topic%d version%d shared", i%50, i%7, (i+version)%13, version)}
	}
	var notes []core.Note
	for i := range 1500 {
		notes = append(notes, note(i, 0))
	}
	s, err := memstore.Open(dir)
	require.NoError(t, err)
	require.NoError(t, s.UpsertNotes(ctx, "p", notes))
	require.NoError(t, s.Close(ctx))

	s, err = memstore.Open(dir)
	require.NoError(t, err)
	defer func() { _ = s.Close(ctx) }()
	_, err = s.KeywordSearch(ctx, "p", "shared", 1) // waits for the keyword load
	require.NoError(t, err)
	var gone []string
	for i := range 1100 {
		gone = append(gone, notes[i].ID)
	}
	_, err = s.DeleteNotes(ctx, "p", gone)
	require.NoError(t, err)
	final := []core.Note{}
	for i := 1100; i < 1500; i++ {
		final = append(final, note(i, 1))
	}
	require.NoError(t, s.UpsertNotes(ctx, "p", final[:200]))
	require.NoError(t, s.UpsertNotes(ctx, "p", final[200:])) // by now dead slots outnumber live ones
	held := memstore.New()
	require.NoError(t, held.UpsertNotes(ctx, "p", final))
	for _, q := range []string{"shared", "topic3", "word7 topic5", "version1 topic11", "version0", "note 1234"} {
		want, err := held.KeywordSearch(ctx, "p", q, 50)
		require.NoError(t, err)
		got, err := s.KeywordSearch(ctx, "p", q, 50)
		require.NoError(t, err)
		assert.Equal(t, want, got, "query %q", q)
	}
}
