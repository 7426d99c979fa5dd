package storetest

import (
	"errors"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// twoProjects writes the same IDs into two projects with different content,
// links and tags: in one a→b→c, tags "one"; in two c→b→a, tags "two", and
// an unresolved link with key "zz".
func twoProjects(e *env) (one, two string, notesOne, notesTwo []core.Note) {
	one, two = e.project(), e.project()
	notesOne = []core.Note{
		withTags(mkNote("a.md", linkTo("b.md")), "one"),
		withTags(mkNote("b.md", linkTo("c.md")), "one"),
		mkNote("c.md"),
	}
	notesTwo = []core.Note{
		withTags(mkNote("a.md"), "two"),
		withTags(mkNote("b.md", linkTo("a.md")), "two"),
		mkNote("c.md", linkTo("b.md"), ghost("zz")),
	}
	for i := range notesTwo {
		notesTwo[i].Title = "Other " + notesTwo[i].ID
		notesTwo[i].Content = "other content"
		notesTwo[i].Hash = "other-" + notesTwo[i].ID
	}
	e.upsert(one, notesOne...)
	e.upsert(two, notesTwo...)
	return one, two, notesOne, notesTwo
}

var isolationCases = []testCase{
	{"reads of two projects with the same ids never mix", func(e *env) {
		one, two, notesOne, notesTwo := twoProjects(e)
		for i := range notesOne {
			e.sameNote(one, notesOne[i], e.get(one, notesOne[i].ID))
			e.sameNote(two, notesTwo[i], e.get(two, notesTwo[i].ID))
		}
		got, err := e.store.GetNotes(e.ctx, two, []string{"a.md", "b.md"})
		require.NoError(e.t, err)
		require.Len(e.t, got, 2)
		e.sameNote(two, notesTwo[0], got[0])
		titles, err := e.store.ResolveTitles(e.ctx, two, []string{"a.md"})
		require.NoError(e.t, err)
		assert.Equal(e.t, map[string]string{"a.md": "Other a.md"}, titles)

		assert.Equal(e.t, []string{"out:c.md", "in:a.md"}, e.neighbors(one, "b.md", core.DirectionBoth, 0))
		assert.Equal(e.t, []string{"out:a.md", "in:c.md"}, e.neighbors(two, "b.md", core.DirectionBoth, 0))
		assert.Equal(e.t, core.Degree{In: 0, Out: 1}, e.degree(one, "a.md"))
		assert.Equal(e.t, core.Degree{In: 1, Out: 0}, e.degree(two, "a.md"))
		assert.Equal(e.t, []string{"a.md", "b.md", "c.md"}, e.path(one, "a.md", "c.md"))
		assert.Nil(e.t, e.path(two, "a.md", "c.md"))
		assert.Equal(e.t, []string{"c.md", "b.md", "a.md"}, e.path(two, "c.md", "a.md"))
		assert.Equal(e.t, []string{"b.md", "c.md", "a.md"}, hubIDs(e.hubs(one, core.MetricInDegree, 10)))
		assert.Equal(e.t, []string{"a.md", "b.md", "c.md"}, hubIDs(e.hubs(two, core.MetricInDegree, 10)))
		e.sameHubs(expectedHubs(map[string][]string{"a.md": {"b.md"}, "b.md": {"c.md"}, "c.md": nil}, core.MetricPageRank),
			e.hubs(one, core.MetricPageRank, 10), "pagerank of project one")
		assert.Equal(e.t, []string{"a.md", "b.md"}, noteIDs(e.byTags(one, []string{"one", "two"}, core.TagModeAny, 10)))
		assert.Empty(e.t, e.byTags(one, []string{"two"}, core.TagModeAny, 10))
		assert.Equal(e.t, []string{"c.md"}, e.unresolvedLinkers(two, "zz"))
		assert.Empty(e.t, e.unresolvedLinkers(one, "zz"))
		assert.Equal(e.t, 3, e.count(one))
		hashes, err := e.store.NoteHashes(e.ctx, two)
		require.NoError(e.t, err)
		assert.Equal(e.t, map[string]string{"a.md": "other-a.md", "b.md": "other-b.md", "c.md": "other-c.md"}, hashes)
		random, err := e.store.RandomNote(e.ctx, two, []string{"two"}, func(n int) int {
			assert.Equal(e.t, 2, n)
			return 0
		})
		require.NoError(e.t, err)
		require.NotNil(e.t, random)
		e.sameNote(two, notesTwo[0], *random)
	}},
	{"writes to one project leave another with the same ids alone", func(e *env) {
		one, two, _, notesTwo := twoProjects(e)
		zz := mkNote("zz.md")
		e.upsert(one, zz, withTags(mkNote("a.md"), "changed"))
		assert.Equal(e.t, []string{"c.md"}, e.unresolvedLinkers(two, "zz"), "a key claimed in one project resolves nothing in another")
		assert.Equal(e.t, 2, e.delete(one, "b.md", "c.md"))

		for _, n := range notesTwo {
			e.sameNote(two, n, e.get(two, n.ID))
		}
		assert.Equal(e.t, []string{"out:a.md", "in:c.md"}, e.neighbors(two, "b.md", core.DirectionBoth, 0))
		assert.Equal(e.t, 3, e.count(two))
		assert.Equal(e.t, 2, e.count(one))
		assert.Equal(e.t, []string{"c.md", "b.md", "a.md"}, e.path(two, "c.md", "a.md"))
		_, err := e.store.GetNote(e.ctx, one, "b.md")
		assert.True(e.t, errors.Is(err, core.ErrNotFound), "got %v", err)
	}},
}
