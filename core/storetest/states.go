package storetest

import (
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// states returns every note state of project by ID, copied out of the
// callback.
func (e *env) states(project string) map[string]core.NoteState {
	e.t.Helper()
	out := map[string]core.NoteState{}
	err := e.store.NoteStates(e.ctx, project, func(st core.NoteState) error {
		_, dup := out[st.ID]
		assert.False(e.t, dup, "note %s listed twice", st.ID)
		st.Links = slices.Clone(st.Links)
		out[st.ID] = st
		return nil
	})
	require.NoError(e.t, err, "note states")
	return out
}

// stateLinks keeps what NoteStates must give of links: Raw, Key and Target.
func stateLinks(links []core.Link) []core.Link {
	out := make([]core.Link, len(links))
	for i, l := range links {
		out[i] = core.Link{Raw: l.Raw, Key: l.Key, Target: l.Target}
	}
	return out
}

var stateCases = []testCase{
	{"NoteStates of an empty project calls nothing", func(e *env) {
		assert.Empty(e.t, e.states(e.project()))
	}},
	{"NoteStates gives each note's path, hash, size, exact mtime and links with their targets", func(e *env) {
		p := e.project()
		a := mkNote("dir/A.md", linkTo("b.md"), ghost("later"), linkTo("b.md"), ghost("nowhere"))
		a.Path = "Dir/A.md"
		a.Size = 0 // an empty file has a size too
		a.ModTime = time.Date(2025, 1, 2, 3, 4, 5, 123_456_789, time.UTC)
		b := mkNote("b.md")
		b.Size = 1 << 40
		e.upsert(p, a, b)
		e.upsert(p, mkNote("later.md")) // resolves a's waiting link

		got := e.states(p)
		require.Len(e.t, got, 3)
		sa := got["dir/A.md"]
		assert.Equal(e.t, "Dir/A.md", sa.Path)
		assert.Equal(e.t, "hash-dir/A.md", sa.Hash)
		assert.Equal(e.t, int64(0), sa.Size)
		assert.True(e.t, a.ModTime.Equal(sa.ModTime), "mtime to the nanosecond: the vault compares it with the file's: want %v, got %v", a.ModTime, sa.ModTime)
		assert.Equal(e.t, []core.Link{
			{Raw: "[[b]]", Key: "b", Target: "b.md"},
			{Raw: "[[later]]", Key: "later", Target: "later.md"},
			{Raw: "[[b]]", Key: "b", Target: "b.md"},
			{Raw: "[[nowhere]]", Key: "nowhere"},
		}, stateLinks(sa.Links))
		assert.Equal(e.t, int64(1<<40), got["b.md"].Size)
		assert.Empty(e.t, got["b.md"].Links)
		assert.True(e.t, got["b.md"].Known())

		e.delete(p, "b.md")
		got = e.states(p)
		require.Len(e.t, got, 2)
		assert.Equal(e.t, []core.Link{
			{Raw: "[[b]]", Key: "b"},
			{Raw: "[[later]]", Key: "later", Target: "later.md"},
			{Raw: "[[b]]", Key: "b"},
			{Raw: "[[nowhere]]", Key: "nowhere"},
		}, stateLinks(got["dir/A.md"].Links), "links to a deleted note are unresolved again")
	}},
	{"NoteStates stops at the callback's first error and returns it", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("a.md"), mkNote("b.md"), mkNote("c.md"))
		stop := errors.New("enough")
		calls := 0
		err := e.store.NoteStates(e.ctx, p, func(core.NoteState) error {
			calls++
			return stop
		})
		require.ErrorIs(e.t, err, stop)
		assert.Equal(e.t, 1, calls)
	}},
	{"NoteStates reads one project only", func(e *env) {
		one, two := e.project(), e.project()
		e.upsert(one, mkNote("a.md"))
		e.upsert(two, mkNote("b.md"))
		assert.Equal(e.t, []string{"b.md"}, slices.Sorted(maps.Keys(e.states(two))))
	}},
}
