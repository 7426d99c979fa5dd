package storetest

import (
	"errors"
	"fmt"
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
	if q.SkipNote {
		assert.Empty(e.t, nc.Note.ID, "%s %+v: a note with SkipNote", id, q)
	} else {
		want := e.get(p, id)
		assert.NoError(e.t, CompareView(want, e.titlesOf(p, []core.Note{want}), nc.Note), "%s %+v: note", id, q)
		assert.Equal(e.t, want.Content, nc.Note.Content, "%s %+v: the note's whole content", id, q)
	}
	var want []core.Neighbor
	if q.Direction != "" {
		var err error
		want, err = e.store.Neighbors(e.ctx, p, id, q.Direction, q.Limit)
		require.NoError(e.t, err)
	}
	require.NotNil(e.t, nc.Neighbors, "%s %+v: neighbours are a list, not nil", id, q)
	assert.Equal(e.t, neighborKeys(want), viewKeys(nc.Neighbors), "%s %+v: neighbours", id, q)
	for i := range min(len(want), len(nc.Neighbors)) {
		n := want[i].Note
		assert.NoError(e.t, CompareView(n, e.titlesOf(p, []core.Note{n}), nc.Neighbors[i].NodeView), "%s %+v: neighbour %s", id, q, n.ID)
	}
	assert.Equal(e.t, e.degree(p, id), nc.Degree, "%s %+v: degree", id, q)
}

// viewKeys is neighborKeys of views.
func viewKeys(ns []core.NeighborView) []string {
	keys := make([]string, len(ns))
	for i, n := range ns {
		keys[i] = string(n.Direction) + ":" + n.ID
	}
	return keys
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
	{"views link every resolved target once, in first-seen order, with its title, and no ghosts", func(e *env) {
		p := e.project()
		neighborhood(e, p)
		e.upsert(p, mkNote("twice.md", linkTo("x.md"), ghost("nowhere"), linkTo("b.md"), linkTo("x.md"), linkTo("twice.md")))
		nc := e.contextOf(p, "twice.md", core.ContextQuery{Direction: core.DirectionBoth})
		info := func(id string) core.LinkInfo { return core.LinkInfo{ID: id, Title: "Title " + id} }
		assert.Equal(e.t, []core.LinkInfo{info("x.md"), info("b.md"), info("twice.md")}, nc.Note.Links)
		assert.Equal(e.t, core.Degree{In: 1, Out: 3}, nc.Degree)
		nc = e.contextOf(p, "m.md", core.ContextQuery{})
		assert.Equal(e.t, []core.LinkInfo{info("z.md"), info("b.md"), info("x.md")}, nc.Note.Links)
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
			got := nc.Neighbors[i].NodeView
			assert.NoError(e.t, CompareView(want, e.titlesOf(p, []core.Note{want}), got))
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
		renamed := core.LinkInfo{ID: "z.md", Title: "Renamed Z"}
		nc := e.contextOf(p, "m.md", core.ContextQuery{})
		assert.Contains(e.t, nc.Note.Links, renamed)
		nc = e.contextOf(p, "x.md", core.ContextQuery{SkipNote: true, Direction: core.DirectionOut})
		require.Len(e.t, nc.Neighbors, 1)
		assert.Contains(e.t, nc.Neighbors[0].Links, renamed, "a neighbour's links")
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
	{"a Balanced context shares the limit between the directions: up to half each, the rest to the other side", func(e *env) {
		p := e.project()
		// hub.md links to both.md and o00..o32 and is linked from both.md
		// and i00..i64: 34 outgoing, 65 incoming-only (both.md is listed
		// once, as outgoing). few.md: 3 out, 30 in. lots.md: 33 out, 2 in.
		var notes []core.Note
		hub := mkNote("hub.md", linkTo("both.md"))
		few, lots := mkNote("few.md"), mkNote("lots.md")
		for i := range 65 {
			id := fmt.Sprintf("o%02d.md", i)
			in := mkNote(fmt.Sprintf("i%02d.md", i), linkTo("hub.md"))
			if i < 33 {
				hub.Links = append(hub.Links, linkTo(id))
				lots.Links = append(lots.Links, linkTo(id))
			}
			if i < 3 {
				few.Links = append(few.Links, linkTo(id))
			}
			if i < 30 {
				in.Links = append(in.Links, linkTo("few.md"))
			}
			if i < 2 {
				in.Links = append(in.Links, linkTo("lots.md"))
			}
			notes = append(notes, mkNote(id), in)
		}
		notes = append(notes, hub, few, lots, mkNote("both.md", linkTo("hub.md")), mkNote("alone.md"))
		e.upsert(p, notes...)
		for _, c := range []struct {
			id                   string
			limit, wantOut, want int
		}{
			{"hub.md", 20, 10, 10}, {"hub.md", 5, 3, 2}, {"hub.md", 1, 1, 0}, {"hub.md", 200, 34, 65},
			{"few.md", 20, 3, 17}, {"lots.md", 20, 18, 2}, {"alone.md", 20, 0, 0},
		} {
			out := e.neighbors(p, c.id, core.DirectionOut, 0)
			both := e.neighbors(p, c.id, core.DirectionBoth, 0)
			want := append(append([]string{}, out[:c.wantOut]...), both[len(out):len(out)+c.want]...)
			q := core.ContextQuery{Direction: core.DirectionBoth, Limit: c.limit, Balanced: true}
			nc := e.contextOf(p, c.id, q)
			assert.Equal(e.t, want, viewKeys(nc.Neighbors), "%s limit %d", c.id, c.limit)
			for _, v := range nc.Neighbors {
				n := e.get(p, v.ID)
				assert.NoError(e.t, CompareView(n, e.titlesOf(p, []core.Note{n}), v.NodeView), "%s: neighbour %s", c.id, v.ID)
			}
			assert.Equal(e.t, e.degree(p, c.id), nc.Degree, c.id)
		}
		assert.Equal(e.t, []string{"out:both.md", "out:o00.md"}, viewKeys(e.contextOf(p, "hub.md", core.ContextQuery{Direction: core.DirectionOut, Limit: 2, Balanced: true}).Neighbors),
			"Balanced means nothing for one direction")
		e.sameAsSeparateCalls(p, "hub.md", core.ContextQuery{Direction: core.DirectionBoth, Balanced: true})
	}},
	{"an unknown direction is an invalid argument", func(e *env) {
		p := e.project()
		neighborhood(e, p)
		_, err := e.store.NoteContext(e.ctx, p, "m.md", core.ContextQuery{Direction: "sideways"})
		assert.True(e.t, errors.Is(err, core.ErrInvalidArgument), "%v", err)
	}},
}

// viewCases hold TaggedViews and RandomView to NotesByTags and RandomNote,
// with the titles ResolveTitles gives for their links.
var viewCases = []testCase{
	{"tagged views are NotesByTags with ResolveTitles of their links", func(e *env) {
		p := e.project()
		notes := taggedNotes()
		notes[0].Links = []core.Link{linkTo("a.md"), ghost("nowhere"), linkTo("e.md"), linkTo("a.md")}
		notes[1].Links = []core.Link{linkTo("c.md"), linkTo("a.md")}
		e.upsert(p, notes...)
		for _, tags := range [][]string{{"ml"}, {"#Go", "python"}, {"ml", "go"}, {"nothing"}} {
			for _, mode := range []core.TagMode{core.TagModeAny, core.TagModeAll} {
				for _, limit := range []int{0, 1, 10} {
					got, err := e.store.TaggedViews(e.ctx, p, tags, mode, limit)
					require.NoError(e.t, err)
					require.NotNil(e.t, got, "%v %s %d: a list, not nil", tags, mode, limit)
					want := e.byTags(p, tags, mode, limit)
					gotIDs := make([]string, len(got))
					for i, v := range got {
						gotIDs[i] = v.ID
					}
					assert.Equal(e.t, noteIDs(want), gotIDs, "%v %s %d", tags, mode, limit)
					for i := range min(len(want), len(got)) {
						assert.NoError(e.t, CompareView(want[i], e.titlesOf(p, want[i:i+1]), got[i]), "%v %s %d: %s", tags, mode, limit, want[i].ID)
					}
				}
			}
		}
	}},
	{"a random view is RandomNote with ResolveTitles of its links", func(e *env) {
		p := e.project()
		notes := taggedNotes()
		notes[1].Links = []core.Link{linkTo("b.md"), linkTo("a.md"), ghost("x")}
		e.upsert(p, notes...)
		for _, tags := range [][]string{nil, {"ml"}, {"nothing"}} {
			for _, k := range []int{0, 1, 2} {
				pick := func(n int) int { return min(k, n-1) }
				want, err := e.store.RandomNote(e.ctx, p, tags, pick)
				require.NoError(e.t, err)
				got, err := e.store.RandomView(e.ctx, p, tags, pick)
				require.NoError(e.t, err)
				if want == nil {
					assert.Nil(e.t, got, "%v pick %d", tags, k)
					continue
				}
				require.NotNil(e.t, got, "%v pick %d", tags, k)
				assert.NoError(e.t, CompareView(*want, e.titlesOf(p, []core.Note{*want}), *got), "%v pick %d", tags, k)
				assert.Equal(e.t, want.Content, got.Content, "%v pick %d: the whole content", tags, k)
			}
		}
	}},
	{"views follow links as notes come and go", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("a.md", linkTo("b.md"), ghost("c"), linkTo("d.md")), mkNote("d.md"))
		links := func() []core.LinkInfo { return e.contextOf(p, "a.md", core.ContextQuery{}).Note.Links }
		info := func(id, title string) core.LinkInfo { return core.LinkInfo{ID: id, Title: title} }
		assert.Equal(e.t, []core.LinkInfo{info("d.md", "Title d.md")}, links(), "b.md does not exist yet")
		b := mkNote("b.md")
		b.Keys = []string{"b", "c"}
		e.upsert(p, b)
		assert.Equal(e.t, []core.LinkInfo{info("b.md", "Title b.md"), info("d.md", "Title d.md")}, links(), "b.md claims both keys")
		before := links()
		d := mkNote("d.md")
		d.Title = "Dee"
		e.upsert(p, d)
		assert.Equal(e.t, []core.LinkInfo{info("b.md", "Title b.md"), info("d.md", "Dee")}, links(), "d.md retitled")
		assert.Equal(e.t, []core.LinkInfo{info("b.md", "Title b.md"), info("d.md", "Title d.md")}, before,
			"a view read before a write does not change with it")
		e.delete(p, "d.md")
		assert.Equal(e.t, []core.LinkInfo{info("b.md", "Title b.md")}, links(), "d.md deleted")
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
