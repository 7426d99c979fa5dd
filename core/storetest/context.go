package storetest

import (
	"errors"
	"strings"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// contextOf calls NoteContext and fails the test on an error.
func (e *env) contextOf(p, id string, q core.ContextQuery) *core.NoteContext {
	e.t.Helper()
	nc, err := e.store.NoteContext(e.ctx, p, id, q)
	require.NoError(e.t, err, "NoteContext(%s, %+v)", id, q)
	return nc
}

// sameAsSeparateCalls requires NoteContext to answer what GetNote,
// Neighbors, Degree and ResolveTitles answer one by one.
func (e *env) sameAsSeparateCalls(p, id string, q core.ContextQuery) {
	e.t.Helper()
	nc := e.contextOf(p, id, q)
	var notes []core.Note
	if q.SkipNote {
		assert.Empty(e.t, nc.Note.ID, "%s %+v: a note with SkipNote", id, q)
	} else {
		want := e.get(p, id)
		assert.NoError(e.t, CompareViewFields(want, nc.Note), "%s %+v: note", id, q)
		assert.Equal(e.t, want.Content, nc.Note.Content, "%s %+v: the note's whole content", id, q)
		notes = append(notes, nc.Note)
	}
	var want []core.Neighbor
	if q.Direction != "" {
		var err error
		want, err = e.store.Neighbors(e.ctx, p, id, q.Direction, q.Limit)
		require.NoError(e.t, err)
	}
	require.NotNil(e.t, nc.Neighbors, "%s %+v: neighbours are a list, not nil", id, q)
	assert.Equal(e.t, neighborKeys(want), neighborKeys(nc.Neighbors), "%s %+v: neighbours", id, q)
	for i := range min(len(want), len(nc.Neighbors)) {
		assert.NoError(e.t, CompareViewFields(want[i].Note, nc.Neighbors[i].Note), "%s %+v: neighbour %s", id, q, want[i].Note.ID)
		notes = append(notes, nc.Neighbors[i].Note)
	}
	assert.Equal(e.t, e.degree(p, id), nc.Degree, "%s %+v: degree", id, q)
	var targets []string
	for _, n := range notes {
		targets = append(targets, n.LinkTargets()...)
	}
	titles, err := e.store.ResolveTitles(e.ctx, p, targets)
	require.NoError(e.t, err)
	assert.Equal(e.t, titles, nc.Titles, "%s %+v: titles", id, q)
}

var contextCases = []testCase{
	{"a note's context is what GetNote, Neighbors, Degree and ResolveTitles answer", func(e *env) {
		p := e.project()
		neighborhood(e, p)
		e.upsert(p, mkNote("self.md", linkTo("self.md"), linkTo("m.md"), ghost("elsewhere")), mkNote("alone.md"))
		for _, id := range []string{"m.md", "x.md", "self.md", "alone.md", "c.md"} {
			for _, dir := range []core.Direction{"", core.DirectionOut, core.DirectionIn, core.DirectionBoth} {
				for _, limit := range []int{0, 1, 2, 100} {
					for _, skip := range []bool{false, true} {
						e.sameAsSeparateCalls(p, id, core.ContextQuery{SkipNote: skip, Direction: dir, Limit: limit})
					}
				}
			}
		}
	}},
	{"the titles cover the note's and every neighbour's resolved links, not ghosts", func(e *env) {
		p := e.project()
		neighborhood(e, p)
		nc := e.contextOf(p, "m.md", core.ContextQuery{Direction: core.DirectionBoth})
		assert.Equal(e.t, map[string]string{
			"z.md": "Title z.md", "b.md": "Title b.md", "x.md": "Title x.md", "m.md": "Title m.md",
		}, nc.Titles)
		assert.Equal(e.t, core.Degree{In: 4, Out: 3}, nc.Degree)
	}},
	{"a neighbour keeps what a view shows of a long content", func(e *env) {
		p := e.project()
		long := mkNote("long.md", linkTo("hub.md"))
		long.Content = strings.Repeat("é", core.ContextContentChars) + "x" + strings.Repeat("y", 3000)
		long.Tags = []string{"Long", "b/c"}
		exact := mkNote("exact.md", linkTo("hub.md"))
		exact.Content = strings.Repeat("z", core.ContextContentChars)
		e.upsert(p, mkNote("hub.md"), long, exact)
		nc := e.contextOf(p, "hub.md", core.ContextQuery{Direction: core.DirectionIn})
		require.Len(e.t, nc.Neighbors, 2)
		for i, want := range []core.Note{exact, long} {
			got := nc.Neighbors[i].Note
			assert.NoError(e.t, CompareViewFields(want, got))
			for _, limit := range []int{core.NeighborContentLimit, core.ListContentLimit} {
				assert.Equal(e.t, core.TruncateContent(want.Content, limit), core.TruncateContent(got.Content, limit), "%s at %d", want.ID, limit)
			}
		}
	}},
	{"a note's context shows a rename of a linked note's title", func(e *env) {
		p := e.project()
		neighborhood(e, p)
		z := mkNote("z.md")
		z.Title = "Renamed Z"
		e.upsert(p, z)
		nc := e.contextOf(p, "m.md", core.ContextQuery{})
		assert.Equal(e.t, "Renamed Z", nc.Titles["z.md"])
	}},
	{"the context of a missing or deleted note is ErrNotFound", func(e *env) {
		p := e.project()
		neighborhood(e, p)
		e.delete(p, "x.md")
		for _, id := range []string{"nope.md", "x.md", "M.md"} {
			for _, q := range []core.ContextQuery{{}, {SkipNote: true, Direction: core.DirectionBoth}} {
				_, err := e.store.NoteContext(e.ctx, p, id, q)
				assert.True(e.t, errors.Is(err, core.ErrNotFound), "%s %+v: %v", id, q, err)
			}
		}
		_, err := e.store.NoteContext(e.ctx, e.project(), "m.md", core.ContextQuery{})
		assert.True(e.t, errors.Is(err, core.ErrNotFound), "another project: %v", err)
	}},
	{"an unknown direction is an invalid argument", func(e *env) {
		p := e.project()
		neighborhood(e, p)
		_, err := e.store.NoteContext(e.ctx, p, "m.md", core.ContextQuery{Direction: "sideways"})
		assert.True(e.t, errors.Is(err, core.ErrInvalidArgument), "%v", err)
	}},
}

// titledCases hold TaggedNotes and RandomNoteTitled to NotesByTags and
// RandomNote, with the titles ResolveTitles gives for their links.
var titledCases = []testCase{
	{"tagged notes with titles are NotesByTags with ResolveTitles of their links", func(e *env) {
		p := e.project()
		notes := taggedNotes()
		notes[0].Links = []core.Link{linkTo("a.md"), ghost("nowhere"), linkTo("e.md")}
		notes[1].Links = []core.Link{linkTo("a.md"), linkTo("c.md")}
		e.upsert(p, notes...)
		for _, tags := range [][]string{{"ml"}, {"#Go", "python"}, {"ml", "go"}, {"nothing"}} {
			for _, mode := range []core.TagMode{core.TagModeAny, core.TagModeAll} {
				for _, limit := range []int{0, 1, 10} {
					got, titles, err := e.store.TaggedNotes(e.ctx, p, tags, mode, limit)
					require.NoError(e.t, err)
					want := e.byTags(p, tags, mode, limit)
					assert.Equal(e.t, noteIDs(want), noteIDs(got), "%v %s %d", tags, mode, limit)
					for i := range min(len(want), len(got)) {
						assert.NoError(e.t, CompareViewFields(want[i], got[i]), "%v %s %d: %s", tags, mode, limit, want[i].ID)
					}
					assert.Equal(e.t, e.titlesOf(p, want), titles, "%v %s %d: titles", tags, mode, limit)
				}
			}
		}
	}},
	{"a random note with titles is RandomNote with ResolveTitles of its links", func(e *env) {
		p := e.project()
		notes := taggedNotes()
		notes[1].Links = []core.Link{linkTo("b.md"), linkTo("a.md"), ghost("x")}
		e.upsert(p, notes...)
		for _, tags := range [][]string{nil, {"ml"}, {"nothing"}} {
			for _, k := range []int{0, 1, 2} {
				pick := func(n int) int { return min(k, n-1) }
				want, err := e.store.RandomNote(e.ctx, p, tags, pick)
				require.NoError(e.t, err)
				got, titles, err := e.store.RandomNoteTitled(e.ctx, p, tags, pick)
				require.NoError(e.t, err)
				if want == nil {
					assert.Nil(e.t, got, "%v pick %d", tags, k)
					continue
				}
				require.NotNil(e.t, got, "%v pick %d", tags, k)
				e.sameNote(p, *want, *got)
				assert.Equal(e.t, e.titlesOf(p, []core.Note{*want}), titles, "%v pick %d: titles", tags, k)
			}
		}
	}},
}

// titlesOf resolves the titles of every link target of notes.
func (e *env) titlesOf(p string, notes []core.Note) map[string]string {
	e.t.Helper()
	var targets []string
	for _, n := range notes {
		targets = append(targets, n.LinkTargets()...)
	}
	titles, err := e.store.ResolveTitles(e.ctx, p, targets)
	require.NoError(e.t, err)
	return titles
}
