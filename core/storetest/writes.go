package storetest

import (
	"context"
	"errors"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// linkTargets returns the Target of each link of the stored note id, in
// document order ("" for unresolved links).
func (e *env) linkTargets(project, id string) []string {
	e.t.Helper()
	n := e.get(project, id)
	targets := make([]string, len(n.Links))
	for i, l := range n.Links {
		targets[i] = l.Target
	}
	return targets
}

var writeCases = []testCase{
	{"an upsert replaces a note's links and tags completely", func(e *env) {
		p := e.project()
		old := withTags(mkNote("a.md", linkTo("b.md"), linkTo("c.md"), ghost("x")), "one", "two")
		e.upsert(p, old, mkNote("b.md"), mkNote("c.md"), mkNote("d.md"))
		replaced := withTags(mkNote("a.md", linkTo("d.md")), "three")
		replaced.Content = "new content"
		e.upsert(p, replaced)

		e.sameNote(p, replaced, e.get(p, "a.md"))
		assert.Equal(e.t, []string{"out:d.md"}, e.neighbors(p, "a.md", core.DirectionBoth, 0))
		assert.Empty(e.t, e.neighbors(p, "b.md", core.DirectionIn, 0))
		assert.Equal(e.t, core.Degree{}, e.degree(p, "c.md"))
		assert.Equal(e.t, core.Degree{In: 1}, e.degree(p, "d.md"))
		assert.Empty(e.t, e.unresolvedLinkers(p, "x"))
		assert.Empty(e.t, e.byTags(p, []string{"one", "two"}, core.TagModeAny, 10))
		assert.Equal(e.t, []string{"a.md"}, noteIDs(e.byTags(p, []string{"three"}, core.TagModeAny, 10)))
		assert.Nil(e.t, e.path(p, "a.md", "b.md"))
	}},
	{"re-upserting a note keeps the links that point at it", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("b.md", linkTo("a.md")), mkNote("a.md"))
		changed := mkNote("a.md")
		changed.Content = "changed"
		e.upsert(p, changed)
		assert.Equal(e.t, []string{"in:b.md"}, e.neighbors(p, "a.md", core.DirectionBoth, 0))
		assert.Equal(e.t, []string{"a.md"}, e.linkTargets(p, "b.md"))
	}},
	{"links to notes later in the same batch are resolved", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("a.md", linkTo("b.md")), mkNote("b.md", linkTo("a.md")))
		assert.Equal(e.t, []string{"a.md", "b.md"}, e.path(p, "a.md", "b.md"))
		assert.Equal(e.t, []string{"b.md"}, e.linkTargets(p, "a.md"))
	}},
	{"a link whose target does not exist is stored unresolved with its key", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("a.md", core.Link{Raw: "[[Ghost|g]]", Key: "ghost", Target: "ghost.md", Alias: "g"}))
		n := e.get(p, "a.md")
		require.Len(e.t, n.Links, 1)
		assert.Equal(e.t, core.Link{Raw: "[[Ghost|g]]", Key: "ghost", Alias: "g"}, n.Links[0])
		assert.Equal(e.t, core.Degree{}, e.degree(p, "a.md"))
		assert.Equal(e.t, []string{"a.md"}, e.unresolvedLinkers(p, "ghost"))
	}},
	{"unresolved links resolve when a note claiming their key is upserted later", func(e *env) {
		p := e.project()
		e.upsert(p,
			mkNote("a.md", ghost("later"), core.Link{Raw: "[[later|L]]", Key: "later", Alias: "L"}, ghost("other")),
			mkNote("c.md", ghost("folder/later")),
		)
		later := mkNote("folder/later.md")
		later.Keys = []string{"folder/later", "later"}
		e.upsert(p, later)

		assert.Equal(e.t, []string{"in:a.md", "in:c.md"}, e.neighbors(p, "folder/later.md", core.DirectionBoth, 0))
		assert.Equal(e.t, []string{"folder/later.md", "folder/later.md", ""}, e.linkTargets(p, "a.md"))
		assert.Equal(e.t, []string{"folder/later.md"}, e.linkTargets(p, "c.md"))
		assert.Empty(e.t, e.unresolvedLinkers(p, "later", "folder/later"))
		assert.Equal(e.t, []string{"a.md"}, e.unresolvedLinkers(p, "other"))
		assert.Equal(e.t, core.Degree{In: 2}, e.degree(p, "folder/later.md"))
		assert.Equal(e.t, []string{"a.md", "folder/later.md"}, e.path(p, "a.md", "folder/later.md"))
	}},
	{"unresolved links resolve to a note claiming their key in the same batch", func(e *env) {
		p := e.project()
		target := mkNote("t.md")
		target.Keys = []string{"t", "alias-key"}
		e.upsert(p, mkNote("a.md", ghost("alias-key")), target)
		assert.Equal(e.t, []string{"t.md"}, e.linkTargets(p, "a.md"))
		assert.Empty(e.t, e.unresolvedLinkers(p, "alias-key"))
	}},
	{"when several notes of a batch claim a key the smallest ID wins", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("linker.md", ghost("dup")))
		z, a, m := mkNote("z/dup.md"), mkNote("a/dup.md"), mkNote("m/dup.md")
		z.Keys, a.Keys, m.Keys = []string{"z/dup", "dup"}, []string{"a/dup", "dup"}, []string{"m/dup", "dup"}
		e.upsert(p, z, m, a)
		assert.Equal(e.t, []string{"a/dup.md"}, e.linkTargets(p, "linker.md"))
		assert.Empty(e.t, e.neighbors(p, "z/dup.md", core.DirectionIn, 0))

		// The same with the linker in the batch.
		y, x := mkNote("y.md"), mkNote("x.md")
		y.Keys, x.Keys = []string{"y", "dup2"}, []string{"x", "dup2"}
		e.upsert(p, y, mkNote("linker2.md", ghost("dup2")), x)
		assert.Equal(e.t, []string{"x.md"}, e.linkTargets(p, "linker2.md"))
	}},
	{"a resolved link keeps its target when another note claims its key", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("a.md", linkTo("b.md")), mkNote("b.md"))
		other := mkNote("other/b.md")
		other.Keys = []string{"other/b", "b"}
		e.upsert(p, other)
		assert.Equal(e.t, []string{"b.md"}, e.linkTargets(p, "a.md"))
		assert.Empty(e.t, e.neighbors(p, "other/b.md", core.DirectionIn, 0))
	}},
	{"the project argument wins over Note.Project", func(e *env) {
		p, other := e.project(), e.project()
		n := mkNote("a.md")
		n.Project = other
		e.upsert(p, n)
		assert.Equal(e.t, p, e.get(p, "a.md").Project)
		assert.Equal(e.t, 0, e.count(other))
	}},
	{"an upsert that fails writes nothing", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("keep.md"))
		ctx, cancel := context.WithCancel(e.ctx)
		cancel()
		err := e.store.UpsertNotes(ctx, p, []core.Note{mkNote("a.md", linkTo("keep.md")), mkNote("b.md")})
		require.Error(e.t, err, "a cancelled context must fail the upsert")
		assert.Equal(e.t, 1, e.count(p))
		assert.Empty(e.t, e.neighbors(p, "keep.md", core.DirectionIn, 0))
		_, err = e.store.GetNote(e.ctx, p, "a.md")
		assert.True(e.t, errors.Is(err, core.ErrNotFound), "got %v", err)
	}},
	{"an empty batch is a no-op", func(e *env) {
		p := e.project()
		require.NoError(e.t, e.store.UpsertNotes(e.ctx, p, nil))
		assert.Equal(e.t, 0, e.count(p))
	}},
}

var deleteCases = []testCase{
	{"DeleteNotes returns how many of the ids existed", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("a.md"), mkNote("b.md"), mkNote("c.md"))
		assert.Equal(e.t, 2, e.delete(p, "a.md", "missing.md", "b.md"))
		assert.Equal(e.t, 0, e.delete(p, "a.md"))
		assert.Equal(e.t, 0, e.delete(p))
		assert.Equal(e.t, 0, e.delete(e.project(), "c.md"), "empty project")
		assert.Equal(e.t, 1, e.count(p))
	}},
	{"deleting a note removes it and its edges", func(e *env) {
		p := e.project()
		e.upsert(p, withTags(mkNote("t.md", linkTo("c.md"), ghost("own-ghost")), "gone"),
			mkNote("a.md", linkTo("t.md")), mkNote("c.md"))
		e.delete(p, "t.md")

		_, err := e.store.GetNote(e.ctx, p, "t.md")
		assert.True(e.t, errors.Is(err, core.ErrNotFound), "got %v", err)
		assert.Equal(e.t, core.Degree{}, e.degree(p, "c.md"))
		assert.Equal(e.t, core.Degree{}, e.degree(p, "a.md"))
		assert.Empty(e.t, e.neighbors(p, "a.md", core.DirectionBoth, 0))
		assert.Empty(e.t, e.neighbors(p, "t.md", core.DirectionBoth, 0))
		assert.Empty(e.t, e.byTags(p, []string{"gone"}, core.TagModeAny, 10))
		assert.Empty(e.t, e.unresolvedLinkers(p, "own-ghost"))
		assert.NotContains(e.t, hubIDs(e.hubs(p, core.MetricInDegree, 10)), "t.md")
		hashes, err := e.store.NoteHashes(e.ctx, p)
		require.NoError(e.t, err)
		assert.Equal(e.t, map[string]string{"a.md": "hash-a.md", "c.md": "hash-c.md"}, hashes)
	}},
	{"links to a deleted note become unresolved with their original key", func(e *env) {
		p := e.project()
		t := mkNote("folder/t.md")
		t.Keys = []string{"folder/t", "t"}
		e.upsert(p, t,
			mkNote("a.md", core.Link{Raw: "[[t|T]]", Key: "t", Target: "folder/t.md", Alias: "T"}),
			mkNote("b.md", core.Link{Raw: "[[folder/t]]", Key: "folder/t", Target: "folder/t.md"}, linkTo("a.md")),
		)
		e.delete(p, "folder/t.md")

		assert.Equal(e.t, []core.Link{{Raw: "[[t|T]]", Key: "t", Alias: "T"}}, e.get(p, "a.md").Links)
		assert.Equal(e.t, []string{"", "a.md"}, e.linkTargets(p, "b.md"))
		assert.Equal(e.t, []string{"a.md"}, e.unresolvedLinkers(p, "t"))
		assert.Equal(e.t, []string{"b.md"}, e.unresolvedLinkers(p, "folder/t"))
		assert.Equal(e.t, core.Degree{In: 1, Out: 0}, e.degree(p, "a.md"))
	}},
	{"re-creating a deleted note resolves its old links again", func(e *env) {
		p := e.project()
		t := mkNote("folder/t.md")
		t.Keys = []string{"folder/t", "t"}
		e.upsert(p, t,
			mkNote("a.md", core.Link{Raw: "[[t]]", Key: "t", Target: "folder/t.md"}),
			mkNote("b.md", core.Link{Raw: "[[folder/t]]", Key: "folder/t", Target: "folder/t.md"}),
		)
		e.delete(p, "folder/t.md")
		e.upsert(p, t)

		assert.Equal(e.t, []string{"in:a.md", "in:b.md"}, e.neighbors(p, "folder/t.md", core.DirectionBoth, 0))
		assert.Equal(e.t, []string{"folder/t.md"}, e.linkTargets(p, "a.md"))
		assert.Equal(e.t, []string{"folder/t.md"}, e.linkTargets(p, "b.md"))
		assert.Empty(e.t, e.unresolvedLinkers(p, "t", "folder/t"))
	}},
	{"deleting linked notes together leaves no trace of either", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("a.md", linkTo("b.md")), mkNote("b.md", linkTo("a.md"), linkTo("c.md")), mkNote("c.md", linkTo("a.md")))
		assert.Equal(e.t, 2, e.delete(p, "a.md", "b.md"))
		assert.Equal(e.t, 1, e.count(p))
		assert.Equal(e.t, core.Degree{}, e.degree(p, "c.md"))
		assert.Equal(e.t, []string{"c.md"}, e.unresolvedLinkers(p, "a", "b"))
		assert.Equal(e.t, []string{""}, e.linkTargets(p, "c.md"))
	}},
	{"deleting a self-linked note leaves only the links of other notes unresolved", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("s.md", linkTo("s.md")), mkNote("o.md", linkTo("s.md")))
		e.delete(p, "s.md")
		assert.Equal(e.t, []string{"o.md"}, e.unresolvedLinkers(p, "s"))
	}},
}
