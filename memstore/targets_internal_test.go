package memstore

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// targetNotes is a small linked project: every note links to the next
// two and to one missing note, and note 0 to itself.
func targetNotes(n int, round string) []core.Note {
	notes := make([]core.Note, n)
	for i := range notes {
		id := fmt.Sprintf("n%03d.md", i)
		links := []core.Link{
			{Raw: "[[gone]]", Key: "gone"},
			{Raw: fmt.Sprintf("[[n%03d]]", (i+1)%n), Key: fmt.Sprintf("n%03d", (i+1)%n), Target: fmt.Sprintf("n%03d.md", (i+1)%n)},
			{Raw: fmt.Sprintf("[[n%03d]]", (i+2)%n), Key: fmt.Sprintf("n%03d", (i+2)%n), Target: fmt.Sprintf("n%03d.md", (i+2)%n), Embed: true},
		}
		if i == 0 {
			links = append(links, core.Link{Raw: "[[n000]]", Key: "n000", Target: "n000.md"})
		}
		notes[i] = core.Note{ID: id, Path: id, Title: "T" + id + round, Hash: "h" + round, Size: 10, Links: links}
	}
	return notes
}

// loadHinted reopens the store at dir and loads project p, returning the
// store, what a client reads of it, and how many targets the load took
// by the table.
func loadHinted(t *testing.T, dir string) (s *Store, described []string, hinted int) {
	t.Helper()
	s, err := Open(dir)
	require.NoError(t, err)
	hinted = -1
	loadHook = func(h int) { hinted = h }
	defer func() { loadHook = nil }()
	ctx := t.Context()
	var states []string
	require.NoError(t, s.NoteStates(ctx, "p", func(st core.NoteState) error {
		states = append(states, fmt.Sprintf("%s %s %s %d %v", st.ID, st.Path, st.Hash, st.Size, st.Links))
		return nil
	}))
	described = append(described, states...)
	ids := make([]string, 0, 64)
	for i := range 64 {
		ids = append(ids, fmt.Sprintf("n%03d.md", i))
	}
	notes, err := s.GetNotes(ctx, "p", ids)
	require.NoError(t, err)
	for _, n := range notes {
		nb, err := s.Neighbors(ctx, "p", n.ID, core.DirectionBoth, 0)
		require.NoError(t, err)
		var nbs []string
		for _, x := range nb {
			nbs = append(nbs, string(x.Direction)+":"+x.Note.ID)
		}
		nc, err := s.NoteContext(ctx, "p", n.ID, core.ContextQuery{Direction: core.DirectionBoth})
		require.NoError(t, err)
		described = append(described, fmt.Sprintf("%s %v %v %v", n.ID, n.Links, nbs, nc))
	}
	u, err := s.UnresolvedLinkers(ctx, "p", []string{"gone", "n999"})
	require.NoError(t, err)
	described = append(described, fmt.Sprint(u))
	return s, described, hinted
}

// The table written with the stamp gives every target at the next load,
// and the graph is the one the map gives without it; a table the notes
// have moved away from (a write after the stamp), one of another shape,
// or a damaged one is checked link by link and gives the same graph.
func TestLinkTargetsTable(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	s, err := Open(dir)
	require.NoError(t, err)
	require.NoError(t, s.UpsertNotes(ctx, "p", targetNotes(40, "")))
	require.NoError(t, s.Close(ctx))

	// No table yet: every target found by its ID.
	s, plain, hinted := loadHinted(t, dir)
	require.Zero(t, hinted)
	require.NoError(t, s.StampStates(ctx, "p", "v1"))
	require.NoError(t, s.Close(ctx))

	// Stamped: every resolved link (2 a note, 3 for n000) by the table.
	s, got, hinted := loadHinted(t, dir)
	require.Equal(t, plain, got)
	require.Equal(t, 81, hinted)

	// A note written after the stamp: the note count differs, the table
	// is not read.
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{{ID: "b.md", Path: "b.md", Title: "B", Hash: "h"}}))
	require.NoError(t, s.Close(ctx))
	s, got, hinted = loadHinted(t, dir)
	require.Zero(t, hinted, "the note count differs: no table")
	require.NoError(t, s.Close(ctx))
	require.Equal(t, describeFresh(t, dir), got)

	// The same count, every position shifted (a note first in ID order
	// added, one gone): each link whose position names another note
	// than its record's target is found by its ID; the graph is what the
	// records say.
	s, err = Open(dir)
	require.NoError(t, err)
	_, err = s.graph("p")
	require.NoError(t, err)
	require.NoError(t, s.StampStates(ctx, "p", "v1"))
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{{ID: "a.md", Path: "a.md", Title: "A", Hash: "h",
		Links: []core.Link{{Raw: "[[n001]]", Key: "n001", Target: "n001.md"}, {Raw: "[[b]]", Key: "b", Target: "b.md"}}}}))
	_, err = s.DeleteNotes(ctx, "p", []string{"n017.md"})
	require.NoError(t, err)
	require.NoError(t, s.Close(ctx))
	s, shifted, _ := loadHinted(t, dir)
	require.NoError(t, s.Close(ctx))
	require.Equal(t, describeFresh(t, dir), shifted)

	// Stamped again: every target by the table once more.
	s, err = Open(dir)
	require.NoError(t, err)
	_, err = s.graph("p") // a sync loads the graph before it stamps
	require.NoError(t, err)
	require.NoError(t, s.StampStates(ctx, "p", "v2"))
	require.NoError(t, s.Close(ctx))
	s, got, hinted = loadHinted(t, dir)
	defer func() { require.NoError(t, s.Close(ctx)) }()
	require.Equal(t, shifted, got)
	// Every resolved link but those of the notes that linked the deleted
	// note: their records still name it (a pending target, which memory
	// does not hash), so their positions are not taken.
	resolved := 0
	require.NoError(t, s.NoteStates(ctx, "p", func(st core.NoteState) error {
		for _, l := range st.Links {
			if l.Key == "n017" {
				return nil
			}
		}
		for _, l := range st.Links {
			if l.Target != "" {
				resolved++
			}
		}
		return nil
	}))
	require.Equal(t, resolved, hinted)
	require.NoError(t, s.Close(ctx))

	// Damaged tables: cut short, counts too large, positions out of range.
	for name, table := range map[string][]byte{
		"cut":       targetTableOf(t, dir)[:20],
		"counts":    append([]byte{targetsVersion, 40}, 0xff, 0xff, 0xff, 0x7f, 1, 2),
		"positions": outOfRange(t, targetTableOf(t, dir), 5),
		"shifted":   outOfRange(t, targetTableOf(t, dir), -1),
		"version":   append([]byte{targetsVersion + 1}, targetTableOf(t, dir)[1:]...),
	} {
		setTargetTable(t, dir, table)
		s, got, _ := loadHinted(t, dir)
		require.NoError(t, s.Close(ctx))
		require.Equal(t, describeFresh(t, dir), got, name)
	}
}

// describeFresh loads the project at dir without any table.
func describeFresh(t *testing.T, dir string) []string {
	t.Helper()
	table := targetTableOf(t, dir)
	setTargetTable(t, dir, nil)
	defer setTargetTable(t, dir, table)
	s, got, hinted := loadHinted(t, dir)
	require.NoError(t, s.Close(t.Context()))
	require.Zero(t, hinted)
	return got
}

// outOfRange rewrites the positions of a valid table (its hashes kept):
// by + the note count for by > 0 (past the end), or by by (other notes).
func outOfRange(t *testing.T, table []byte, by int) []byte {
	t.Helper()
	b := table[1:]
	n, k := binary.Uvarint(b)
	require.Positive(t, k)
	out := append([]byte(nil), table[:1+k+8]...)
	b = b[k+8:]
	for range n {
		c, k := binary.Uvarint(b)
		require.Positive(t, k)
		out, b = binary.AppendUvarint(out, c), b[k:]
		if c == 0 {
			continue
		}
		out, b = append(out, b[:8]...), b[8:]
		for range c {
			v, k := binary.Uvarint(b)
			require.Positive(t, k)
			b = b[k:]
			switch {
			case v == 0:
			case by > 0:
				v += n + uint64(by)
			case v > 1:
				v--
			}
			out = binary.AppendUvarint(out, v)
		}
	}
	return out
}

func targetTableOf(t *testing.T, dir string) (table []byte) {
	t.Helper()
	s, err := Open(dir)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close(t.Context())) }()
	require.NoError(t, s.kv.View(func(tx *kv.Tx) error {
		table = append([]byte(nil), tx.GetRaw(targetsBucket, "p")...)
		return nil
	}))
	return table
}

func setTargetTable(t *testing.T, dir string, table []byte) {
	t.Helper()
	s, err := Open(dir)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close(t.Context())) }()
	require.NoError(t, s.kv.Update(func(tx *kv.Tx) error {
		if len(table) == 0 {
			return putTargetTable(tx, "p", nil)
		}
		return putTargetTable(tx, "p", table)
	}))
}

// idHasher's hash is xxhash's of the bytes it is given, in order, however
// they are gathered: tables written before it gathered them (one Write
// each) still prove their positions.
func TestIDHasherHashesItsBytes(t *testing.T) {
	for _, n := range []int{0, 1, 7, 300, 5000} {
		h := newIDHasher()
		d := xxhash.New()
		for i := range n {
			id := fmt.Sprintf("folder %d/note %d.md", i%13, i)
			if i%5 == 0 {
				id = "" // a link without a target
			}
			pos := int32(i%9) - 1
			h.link(id, pos)
			var b [binary.MaxVarintLen64]byte
			_, _ = d.Write(b[:binary.PutUvarint(b[:], uint64(len(id)))])
			_, _ = d.WriteString(id)
			_, _ = d.Write(b[:binary.PutVarint(b[:], int64(pos))])
		}
		require.Equal(t, d.Sum64(), h.sum(), "%d links", n)
		h.reset()
		h.add("a.md")
		d.Reset()
		_, _ = d.Write([]byte{4})
		_, _ = d.WriteString("a.md")
		require.Equal(t, d.Sum64(), h.sum(), "after reset")
	}
}
