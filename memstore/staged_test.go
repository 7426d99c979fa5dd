package memstore_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/core/storetest"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// stagedNotes is a graph of n notes whose links go to existing notes, to
// notes of the same write and to keys nobody claims, with two notes
// claiming one key, for the staged write tests.
func stagedNotes(n int, seed uint64) []core.Note {
	rng := rand.New(rand.NewPCG(seed, 9))
	notes := make([]core.Note, n)
	for i := range notes {
		text := memstore.RandomText(rng, 5+rng.IntN(40))
		key := fmt.Sprintf("note %d", i)
		if i%97 == 5 {
			key = "shared key" // claimed by several notes: the smallest ID wins
		}
		notes[i] = core.Note{
			ID: fmt.Sprintf("n%05d.md", i), Title: fmt.Sprintf("Note %d", i), Content: text,
			Tags: []string{fmt.Sprintf("t%d", rng.IntN(7))}, Keys: []string{key}, Hash: fmt.Sprintf("h%d", i),
		}
		for range rng.IntN(6) {
			switch t := rng.IntN(n + n/10); {
			case t < n:
				notes[i].Links = append(notes[i].Links, core.Link{Raw: fmt.Sprintf("[[Note %d]]", t), Key: fmt.Sprintf("note %d", t)})
			default:
				notes[i].Links = append(notes[i].Links, core.Link{Raw: "[[nobody]]", Key: "nobody"})
			}
		}
		if i%13 == 0 {
			notes[i].Links = append(notes[i].Links, core.Link{Raw: "[[shared key]]", Key: "shared key"})
		}
	}
	return notes
}

// resolveAgainst sets each link's Target to the note of its key among
// known, as the vault does for notes it can see.
func resolveAgainst(notes []core.Note, known map[string]string) {
	for i := range notes {
		for j := range notes[i].Links {
			notes[i].Links[j].Target = known[notes[i].Links[j].Key]
		}
	}
}

// A staged write leaves the store exactly as one UpsertNotes of the same
// notes: on top of notes written before (some rewritten with the same text,
// so the write passes their analysis without waiting for it), with a
// repeated ID, and over many more chunks than the analysis runs ahead.
func TestStagedWriteSameAsOneUpsert(t *testing.T) {
	const n = 9000
	notes := stagedNotes(n, 1)
	before := slices.Clone(notes[:3000])
	known := map[string]string{}
	for _, nt := range before {
		if k := nt.Keys[0]; known[k] == "" || nt.ID < known[k] {
			known[k] = nt.ID
		}
	}
	resolveAgainst(before, known)

	staged := slices.Clone(notes[2000:])
	for i := range staged[:1000] { // rewritten: same text, new tags
		staged[i].Tags = []string{"rewritten"}
		staged[i].Hash += "-2"
	}
	staged = append(staged, staged[len(staged)-1]) // the same ID twice: the later wins
	staged[len(staged)-1].Tags = []string{"later"}

	one, st := memstore.New(), memstore.New()
	ctx := t.Context()
	require.NoError(t, one.UpsertNotes(ctx, "p", before))
	require.NoError(t, st.UpsertNotes(ctx, "p", before))
	require.NoError(t, one.UpsertNotes(ctx, "p", staged))
	reported := 0
	require.NoError(t, st.UpsertNotesStaged(ctx, "p", staged, func(k int) {
		assert.Positive(t, k)
		reported += k
	}))
	assert.Equal(t, len(staged), reported, "progress adds up to the notes given")

	for _, nt := range notes {
		want, err := one.GetNote(ctx, "p", nt.ID)
		require.NoError(t, err)
		got, err := st.GetNote(ctx, "p", nt.ID)
		require.NoError(t, err)
		require.NoError(t, storetest.CompareNotes(*want, *got), nt.ID)
		wantN, err := one.Neighbors(ctx, "p", nt.ID, core.DirectionBoth, 0)
		require.NoError(t, err)
		gotN, err := st.Neighbors(ctx, "p", nt.ID, core.DirectionBoth, 0)
		require.NoError(t, err)
		require.Equal(t, neighborIDs(wantN), neighborIDs(gotN), nt.ID)
	}
	wantH, err := one.NoteHashes(ctx, "p")
	require.NoError(t, err)
	gotH, err := st.NoteHashes(ctx, "p")
	require.NoError(t, err)
	assert.Equal(t, wantH, gotH)
	for _, q := range []string{"alpha", "café", "ünïcode delta", "2024 graph", "rewritten"} {
		want, err := one.KeywordSearch(ctx, "p", q, 50)
		require.NoError(t, err)
		got, err := st.KeywordSearch(ctx, "p", q, 50)
		require.NoError(t, err)
		assert.Equal(t, want, got, q)
	}
}

// A staged write of notes whose text is all unchanged passes every chunk
// without waiting for its analysis; it must still finish (the workers skip
// what the write has passed instead of holding the window).
func TestStagedWriteOfUnchangedTextFinishes(t *testing.T) {
	notes := stagedNotes(8000, 2)
	st := memstore.New()
	require.NoError(t, st.UpsertNotes(t.Context(), "p", notes))
	for i := range notes {
		notes[i].Tags = []string{"retagged"}
	}
	done := make(chan error, 1)
	go func() { done <- st.UpsertNotesStaged(t.Context(), "p", notes, nil) }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("staged write of unchanged text did not finish")
	}
	got, err := st.NotesByTags(t.Context(), "p", []string{"retagged"}, core.TagModeAny, 0)
	require.NoError(t, err)
	assert.Len(t, got, len(notes))
}

func neighborIDs(ns []core.Neighbor) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = string(n.Direction) + " " + n.Note.ID
	}
	return out
}

// Notes written in batches, their links carrying the targets resolved
// against every note (as the vault's first sync streams them), end as one
// write of them all, in memory and after a reopen; so does a link whose
// target a key claim changed and a deletion then took away, when the note
// its record first named comes (it names the claimer since, so it stays
// unresolved).
func TestBatchesResolveLikeOneWrite(t *testing.T) {
	ctx := t.Context()
	notes := stagedNotes(3000, 3)
	known := map[string]string{}
	for _, nt := range notes {
		if k := nt.Keys[0]; known[k] == "" || nt.ID < known[k] {
			known[k] = nt.ID
		}
	}
	resolveAgainst(notes, known)
	one := memstore.New()
	require.NoError(t, one.UpsertNotes(ctx, "p", notes))
	dir := t.TempDir()
	st, err := memstore.Open(dir)
	require.NoError(t, err)
	for start := 0; start < len(notes); start += 700 {
		batch := notes[start:min(start+700, len(notes))]
		if start%1400 == 0 {
			require.NoError(t, st.UpsertNotesStaged(ctx, "p", batch, nil))
		} else {
			require.NoError(t, st.UpsertNotes(ctx, "p", batch))
		}
		if start == 1400 { // a reopen in the middle: the waiting links are read back
			require.NoError(t, st.Close(ctx))
			st, err = memstore.Open(dir)
			require.NoError(t, err)
		}
	}
	same := func(want, got *memstore.Store) {
		t.Helper()
		for _, nt := range notes {
			w, err := want.GetNote(ctx, "p", nt.ID)
			require.NoError(t, err)
			g, err := got.GetNote(ctx, "p", nt.ID)
			require.NoError(t, err)
			require.NoError(t, storetest.CompareNotes(*w, *g), nt.ID)
			wn, err := want.Neighbors(ctx, "p", nt.ID, core.DirectionBoth, 0)
			require.NoError(t, err)
			gn, err := got.Neighbors(ctx, "p", nt.ID, core.DirectionBoth, 0)
			require.NoError(t, err)
			require.Equal(t, neighborIDs(wn), neighborIDs(gn), nt.ID)
		}
	}
	same(one, st)
	require.NoError(t, st.Close(ctx))
	st, err = memstore.Open(dir)
	require.NoError(t, err)
	same(one, st)

	// c links t.md, not there: its record names it. A claim resolves the
	// link to y.md, whose deletion leaves it unresolved naming y.md; t.md
	// comes without claiming the key: the link stays unresolved, before
	// and after a reopen.
	c := core.Note{ID: "c.md", Hash: "c", Links: []core.Link{{Raw: "[[k]]", Key: "k", Target: "t.md"}}}
	y := core.Note{ID: "y.md", Hash: "y", Keys: []string{"k"}}
	tn := core.Note{ID: "t.md", Hash: "t", Keys: []string{"other"}}
	for _, s := range []*memstore.Store{one, st} {
		require.NoError(t, s.UpsertNotes(ctx, "q", []core.Note{c}))
		require.NoError(t, s.UpsertNotes(ctx, "q", []core.Note{y}))
		_, err := s.DeleteNotes(ctx, "q", []string{"y.md"})
		require.NoError(t, err)
		require.NoError(t, s.UpsertNotes(ctx, "q", []core.Note{tn}))
		got, err := s.GetNote(ctx, "q", "c.md")
		require.NoError(t, err)
		assert.Equal(t, "", got.Links[0].Target)
	}
	require.NoError(t, st.Close(ctx))
	st, err = memstore.Open(dir)
	require.NoError(t, err)
	got, err := st.GetNote(ctx, "q", "c.md")
	require.NoError(t, err)
	assert.Equal(t, "", got.Links[0].Target, "after a reopen too")
	// y.md comes back: its record names it, so the link resolves to it.
	require.NoError(t, st.UpsertNotes(ctx, "q", []core.Note{{ID: "y.md", Hash: "y2"}}))
	got, err = st.GetNote(ctx, "q", "c.md")
	require.NoError(t, err)
	assert.Equal(t, "y.md", got.Links[0].Target)
	require.NoError(t, st.Close(ctx))
}
