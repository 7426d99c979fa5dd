package storetest

import (
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// taggedNotes: ML on a, b (as "ml") and d; Go on a; go/lang on c; e has none.
func taggedNotes() []core.Note {
	return []core.Note{
		withTags(mkNote("d.md"), "python", "ML"),
		withTags(mkNote("a.md"), "ML", "Go"),
		withTags(mkNote("b.md"), "ml"),
		withTags(mkNote("c.md"), "go/lang"),
		mkNote("e.md"),
	}
}

var tagCases = []testCase{
	{"any-mode tag queries match case-insensitively and tolerate a leading #", func(e *env) {
		p := e.project()
		e.upsert(p, taggedNotes()...)
		for _, tags := range [][]string{{"ml"}, {"ML"}, {"#ml"}, {"#Ml", "nothing"}} {
			assert.Equal(e.t, []string{"a.md", "b.md", "d.md"}, noteIDs(e.byTags(p, tags, core.TagModeAny, 10)), "%v", tags)
		}
		assert.Equal(e.t, []string{"a.md", "b.md", "d.md"}, noteIDs(e.byTags(p, []string{"python", "#ml"}, core.TagModeAny, 10)))
		assert.Equal(e.t, []string{"a.md", "c.md"}, noteIDs(e.byTags(p, []string{"GO", "go/lang"}, core.TagModeAny, 10)))
	}},
	{"all-mode tag queries need every tag", func(e *env) {
		p := e.project()
		e.upsert(p, taggedNotes()...)
		assert.Equal(e.t, []string{"a.md"}, noteIDs(e.byTags(p, []string{"ml", "#GO"}, core.TagModeAll, 10)))
		assert.Equal(e.t, []string{"d.md"}, noteIDs(e.byTags(p, []string{"Python", "ml"}, core.TagModeAll, 10)))
		assert.Equal(e.t, []string{"a.md", "b.md", "d.md"}, noteIDs(e.byTags(p, []string{"ml", "ML"}, core.TagModeAll, 10)), "repeated tags")
		assert.Empty(e.t, e.byTags(p, []string{"ml", "nothing"}, core.TagModeAll, 10))
		assert.Empty(e.t, e.byTags(p, []string{"python", "go"}, core.TagModeAll, 10), "d has python, a has go, none both")
	}},
	{"a tag matches itself and the tags nested under it, as Obsidian's tag search", func(e *env) {
		p := e.project()
		e.upsert(p, append(taggedNotes(),
			withTags(mkNote("f.md"), "Go/Lang/Generics"), withTags(mkNote("g.md"), "golang"), withTags(mkNote("h.md"), "lang"))...)
		for _, mode := range []core.TagMode{core.TagModeAny, core.TagModeAll} {
			assert.Equal(e.t, []string{"a.md", "c.md", "f.md"}, noteIDs(e.byTags(p, []string{"#GO"}, mode, 10)), "%s: go finds go/lang and go/lang/generics, not golang", mode)
			assert.Equal(e.t, []string{"c.md", "f.md"}, noteIDs(e.byTags(p, []string{"go/lang"}, mode, 10)), "%s: the exact nested tag and its children", mode)
			assert.Equal(e.t, []string{"f.md"}, noteIDs(e.byTags(p, []string{"go/lang/generics"}, mode, 10)), mode)
			assert.Equal(e.t, []string{"h.md"}, noteIDs(e.byTags(p, []string{"lang"}, mode, 10)), "%s: a nested tag's last part is not the tag", mode)
			assert.Empty(e.t, e.byTags(p, []string{"m"}, mode, 10), "%s: a prefix of a name is not a parent", mode)
			assert.Empty(e.t, e.byTags(p, []string{"go/"}, mode, 10), mode)
			assert.Equal(e.t, []string{"a.md", "c.md"}, noteIDs(e.byTags(p, []string{"go"}, mode, 2)), "%s: cut at the limit", mode)
		}
		assert.Equal(e.t, []string{"a.md"}, noteIDs(e.byTags(p, []string{"go", "ml"}, core.TagModeAll, 10)), "all: each tag by itself or nested")
		assert.Equal(e.t, []string{"c.md", "f.md"}, noteIDs(e.byTags(p, []string{"go", "go/lang"}, core.TagModeAll, 10)))
		assert.Equal(e.t, []string{"a.md", "b.md", "c.md", "d.md", "f.md", "h.md"}, noteIDs(e.byTags(p, []string{"go", "ml", "lang"}, core.TagModeAny, 10)))
		views, err := e.store.TaggedViews(e.ctx, p, []string{"go"}, core.TagModeAny, 10)
		require.NoError(e.t, err)
		assert.Len(e.t, views, 3, "tagged views match nested tags too")
		var picked []string
		for i := range 3 {
			n, err := e.store.RandomNote(e.ctx, p, []string{"go"}, func(n int) int {
				assert.Equal(e.t, 3, n, "candidate count")
				return i
			})
			require.NoError(e.t, err)
			require.NotNil(e.t, n)
			picked = append(picked, n.ID)
			v, err := e.store.RandomView(e.ctx, p, []string{"go"}, func(int) int { return i })
			require.NoError(e.t, err)
			require.NotNil(e.t, v)
			assert.Equal(e.t, n.ID, v.ID)
		}
		assert.Equal(e.t, []string{"a.md", "c.md", "f.md"}, picked, "random_node's tags match nested tags")
	}},
	{"an empty tag list matches nothing", func(e *env) {
		p := e.project()
		e.upsert(p, taggedNotes()...)
		assert.Empty(e.t, e.byTags(p, nil, core.TagModeAny, 10))
		assert.Empty(e.t, e.byTags(p, []string{}, core.TagModeAll, 10))
	}},
	{"tag query results are whole notes by ID ascending, cut at the limit", func(e *env) {
		p := e.project()
		notes := taggedNotes()
		e.upsert(p, notes...)
		got := e.byTags(p, []string{"ml"}, core.TagModeAny, 2)
		require.Equal(e.t, []string{"a.md", "b.md"}, noteIDs(got))
		e.sameNote(p, notes[1], got[0])
		e.sameNote(p, notes[2], got[1])
		assert.Equal(e.t, []string{"a.md"}, noteIDs(e.byTags(p, []string{"ml", "go"}, core.TagModeAll, 1)))
	}},
	{"tag queries follow upserts and deletes", func(e *env) {
		p := e.project()
		e.upsert(p, taggedNotes()...)
		e.upsert(p, withTags(mkNote("a.md"), "Other"), withTags(mkNote("f.md"), "#ml"))
		e.delete(p, "d.md")
		assert.Equal(e.t, []string{"b.md", "f.md"}, noteIDs(e.byTags(p, []string{"ml"}, core.TagModeAny, 10)))
		assert.Equal(e.t, []string{"c.md"}, noteIDs(e.byTags(p, []string{"go"}, core.TagModeAny, 10)), "a.md's go is gone; c.md's go/lang stays")
		e.upsert(p, withTags(mkNote("c.md"), "lang"))
		assert.Empty(e.t, e.byTags(p, []string{"go"}, core.TagModeAny, 10), "and then c.md's go/lang")
		assert.Equal(e.t, []string{"a.md"}, noteIDs(e.byTags(p, []string{"other"}, core.TagModeAll, 10)))
		assert.Empty(e.t, e.byTags(p, []string{"python"}, core.TagModeAny, 10))
	}},
	{"RandomNote asks pick for an index among all notes in ID order", func(e *env) {
		p := e.project()
		e.upsert(p, taggedNotes()...)
		var got []string
		for i := range 5 {
			n, err := e.store.RandomNote(e.ctx, p, nil, func(n int) int {
				assert.Equal(e.t, 5, n, "candidate count")
				return i
			})
			require.NoError(e.t, err)
			require.NotNil(e.t, n)
			got = append(got, n.ID)
		}
		assert.Equal(e.t, []string{"a.md", "b.md", "c.md", "d.md", "e.md"}, got, "each index once gives each note once")
	}},
	{"RandomNote with tags picks among notes carrying any of them", func(e *env) {
		p := e.project()
		notes := taggedNotes()
		e.upsert(p, notes...)
		var got []string
		for i := range 4 {
			n, err := e.store.RandomNote(e.ctx, p, []string{"#ML", "go/lang"}, func(n int) int {
				assert.Equal(e.t, 4, n, "candidate count")
				return i
			})
			require.NoError(e.t, err)
			require.NotNil(e.t, n)
			got = append(got, n.ID)
			if n.ID == "d.md" {
				e.sameNote(p, notes[0], *n)
			}
		}
		assert.Equal(e.t, []string{"a.md", "b.md", "c.md", "d.md"}, got)
	}},
	{"RandomNote without a candidate returns nil without calling pick", func(e *env) {
		p := e.project()
		pick := func(n int) int {
			e.t.Errorf("pick(%d) called without candidates", n)
			return 0
		}
		n, err := e.store.RandomNote(e.ctx, p, nil, pick)
		require.NoError(e.t, err)
		assert.Nil(e.t, n, "empty project")
		e.upsert(p, taggedNotes()...)
		n, err = e.store.RandomNote(e.ctx, p, []string{"nothing"}, pick)
		require.NoError(e.t, err)
		assert.Nil(e.t, n, "no note carries the tag")
	}},
}
