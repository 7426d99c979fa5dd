package storetest

import (
	"errors"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// neighborhood writes m.md linking (in this document order) z, b, x, b and
// a ghost; a, y, x and c link to m. x is on both sides.
func neighborhood(e *env, p string) {
	e.upsert(p,
		mkNote("m.md", linkTo("z.md"), linkTo("b.md"), linkTo("x.md"), linkTo("b.md"), ghost("nowhere")),
		mkNote("y.md", linkTo("m.md")),
		mkNote("a.md", linkTo("m.md")),
		mkNote("x.md", linkTo("m.md")),
		mkNote("c.md", linkTo("m.md"), linkTo("m.md")),
		mkNote("z.md"), mkNote("b.md"),
	)
}

var neighborCases = []testCase{
	{"outgoing neighbours come by ID ascending, each once", func(e *env) {
		p := e.project()
		neighborhood(e, p)
		assert.Equal(e.t, []string{"out:b.md", "out:x.md", "out:z.md"}, e.neighbors(p, "m.md", core.DirectionOut, 0))
	}},
	{"incoming neighbours come by ID ascending, each once", func(e *env) {
		p := e.project()
		neighborhood(e, p)
		assert.Equal(e.t, []string{"in:a.md", "in:c.md", "in:x.md", "in:y.md"}, e.neighbors(p, "m.md", core.DirectionIn, 0))
	}},
	{"both directions list outgoing first and a note on both sides once as outgoing", func(e *env) {
		p := e.project()
		neighborhood(e, p)
		assert.Equal(e.t,
			[]string{"out:b.md", "out:x.md", "out:z.md", "in:a.md", "in:c.md", "in:y.md"},
			e.neighbors(p, "m.md", core.DirectionBoth, 0))
	}},
	{"the limit cuts the ordered list and zero or less means no limit", func(e *env) {
		p := e.project()
		neighborhood(e, p)
		assert.Equal(e.t, []string{"out:b.md", "out:x.md", "out:z.md", "in:a.md"}, e.neighbors(p, "m.md", core.DirectionBoth, 4))
		assert.Equal(e.t, []string{"out:b.md", "out:x.md"}, e.neighbors(p, "m.md", core.DirectionBoth, 2))
		assert.Equal(e.t, []string{"in:a.md", "in:c.md"}, e.neighbors(p, "m.md", core.DirectionIn, 2))
		assert.Equal(e.t, []string{"out:b.md"}, e.neighbors(p, "m.md", core.DirectionOut, 1))
		assert.Len(e.t, e.neighbors(p, "m.md", core.DirectionBoth, -1), 6)
		assert.Len(e.t, e.neighbors(p, "m.md", core.DirectionBoth, 100), 6)
	}},
	{"neighbours are whole notes", func(e *env) {
		p := e.project()
		neighborhood(e, p)
		ns, err := e.store.Neighbors(e.ctx, p, "m.md", core.DirectionBoth, 0)
		require.NoError(e.t, err)
		require.Len(e.t, ns, 6)
		e.sameNote(p, mkNote("b.md"), ns[0].Note)
		e.sameNote(p, mkNote("c.md", linkTo("m.md"), linkTo("m.md")), ns[4].Note)
	}},
	{"an unknown id or a note without links has no neighbours and no error", func(e *env) {
		p := e.project()
		neighborhood(e, p)
		e.upsert(p, mkNote("alone.md", ghost("nowhere")))
		for _, dir := range []core.Direction{core.DirectionIn, core.DirectionOut, core.DirectionBoth} {
			assert.Empty(e.t, e.neighbors(p, "missing.md", dir, 10), dir)
			assert.Empty(e.t, e.neighbors(p, "alone.md", dir, 10), dir)
			assert.Empty(e.t, e.neighbors(e.project(), "m.md", dir, 10), "empty project, %s", dir)
		}
	}},
	{"a self-link makes a note its own neighbour, listed once as outgoing", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("s.md", linkTo("t.md"), linkTo("s.md"), linkTo("s.md")), mkNote("t.md"))
		assert.Equal(e.t, []string{"out:s.md", "out:t.md"}, e.neighbors(p, "s.md", core.DirectionOut, 0))
		assert.Equal(e.t, []string{"in:s.md"}, e.neighbors(p, "s.md", core.DirectionIn, 0))
		assert.Equal(e.t, []string{"out:s.md", "out:t.md"}, e.neighbors(p, "s.md", core.DirectionBoth, 0))
	}},
	{"degree counts distinct notes on each side", func(e *env) {
		p := e.project()
		neighborhood(e, p)
		assert.Equal(e.t, core.Degree{In: 4, Out: 3}, e.degree(p, "m.md"), "m.md")
		assert.Equal(e.t, core.Degree{In: 0, Out: 1}, e.degree(p, "c.md"), "c links m twice")
		assert.Equal(e.t, core.Degree{In: 1, Out: 1}, e.degree(p, "x.md"), "x.md")
		assert.Equal(e.t, core.Degree{In: 1, Out: 0}, e.degree(p, "b.md"), "m links b twice")
	}},
	{"several links from one note to another are one edge", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("a.md",
			core.Link{Raw: "[[b]]", Key: "b", Target: "b.md"},
			core.Link{Raw: "[[b|alias]]", Key: "b", Target: "b.md", Alias: "alias"},
			core.Link{Raw: "![[b#Part]]", Key: "b", Target: "b.md", Heading: "Part", Embed: true},
		), mkNote("b.md"))
		assert.Equal(e.t, core.Degree{In: 0, Out: 1}, e.degree(p, "a.md"))
		assert.Equal(e.t, core.Degree{In: 1, Out: 0}, e.degree(p, "b.md"))
		assert.Equal(e.t, []string{"in:a.md"}, e.neighbors(p, "b.md", core.DirectionBoth, 0))
		hubs := e.hubs(p, core.MetricInDegree, 1)
		require.Len(e.t, hubs, 1)
		assert.Equal(e.t, core.Hub{ID: "b.md", Title: "Title b.md", Score: 1}, hubs[0])
	}},
	{"a self-link counts once on each side and unresolved links not at all", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("s.md", linkTo("s.md"), linkTo("s.md"), ghost("nowhere"), linkTo("t.md")), mkNote("t.md"), mkNote("alone.md"))
		assert.Equal(e.t, core.Degree{In: 1, Out: 2}, e.degree(p, "s.md"))
		assert.Equal(e.t, core.Degree{In: 1, Out: 0}, e.degree(p, "t.md"))
		assert.Equal(e.t, core.Degree{}, e.degree(p, "alone.md"))
	}},
	{"Degree of a missing id returns an error wrapping ErrNotFound", func(e *env) {
		p := e.project()
		_, err := e.store.Degree(e.ctx, p, "missing.md")
		assert.True(e.t, errors.Is(err, core.ErrNotFound), "empty project: got %v", err)
		e.upsert(p, mkNote("a.md", ghost("missing")))
		_, err = e.store.Degree(e.ctx, p, "missing.md")
		assert.True(e.t, errors.Is(err, core.ErrNotFound), "got %v", err)
	}},
}
