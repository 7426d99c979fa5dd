package storetest

import (
	"errors"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// sameNote fails the test unless got is want as stored in project.
func (e *env) sameNote(project string, want, got core.Note) {
	e.t.Helper()
	want.Project = project
	assert.NoError(e.t, CompareNotes(want, got))
}

// richNote exercises every field a store must round-trip.
func richNote() core.Note {
	return core.Note{
		Project: "some-other-project", // ignored: the project argument wins
		ID:      "folder/rich note.md",
		Title:   "Rich Note ✓",
		Path:    "Folder/Rich Note.md",
		Content: "First line\n\n# Heading\n\nÜnïcödé 日本語 \"quotes\" 'single' \\backslash\\ {braces} $dollar\ttab\n",
		Tags:    []string{"ML", "go/lang", "Ünïcode"},
		Links: []core.Link{
			{Raw: "[[b#Part|shown]]", Key: "b", Target: "b.md", Alias: "shown", Heading: "Part"},
			{Raw: "![[b]]", Key: "b", Target: "b.md", Embed: true},
			{Raw: "[[nowhere#^block1]]", Key: "nowhere", Heading: "^block1"},
			{Raw: "[[b]]", Key: "b", Target: "b.md"},
		},
		Frontmatter: map[string]any{
			"title":      "Rich Note ✓",
			"count":      3,
			"ratio":      2.5,
			"big":        int64(1) << 40,
			"negative":   -7,
			"yes":        true,
			"no":         false,
			"nothing":    nil,
			"list":       []any{"a", 1, 2.5, true},
			"empty_list": []any{},
			"nested": map[string]any{
				"inner": map[string]any{"deep": []any{"x", map[string]any{"k": "v"}}},
				"n":     1,
			},
		},
		Hash:    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		ModTime: baseTime,
		Keys:    []string{"folder/rich note", "rich note"},
	}
}

var readCases = []testCase{
	{"a note comes back with every field it was written with", func(e *env) {
		p := e.project()
		rich, b := richNote(), withTags(mkNote("b.md"), "ml")
		e.upsert(p, rich, b)

		e.sameNote(p, rich, e.get(p, rich.ID))
		notes, err := e.store.GetNotes(e.ctx, p, []string{rich.ID})
		require.NoError(e.t, err)
		require.Len(e.t, notes, 1)
		e.sameNote(p, rich, notes[0])

		// Every method that returns notes returns them whole.
		ns, err := e.store.Neighbors(e.ctx, p, "b.md", core.DirectionIn, 0)
		require.NoError(e.t, err)
		require.Len(e.t, ns, 1)
		e.sameNote(p, rich, ns[0].Note)
		tagged := e.byTags(p, []string{"ml"}, core.TagModeAny, 10)
		require.Len(e.t, tagged, 2)
		e.sameNote(p, b, tagged[0])
		e.sameNote(p, rich, tagged[1])
		random, err := e.store.RandomNote(e.ctx, p, nil, func(int) int { return 1 })
		require.NoError(e.t, err)
		require.NotNil(e.t, random)
		e.sameNote(p, rich, *random)
	}},
	{"a note without frontmatter, tags, links or content comes back empty", func(e *env) {
		p := e.project()
		bare := core.Note{ID: "bare.md", Title: "bare", Path: "bare.md", Hash: "h", ModTime: time.UnixMilli(1_700_000_000_123)}
		e.upsert(p, bare)
		got := e.get(p, "bare.md")
		e.sameNote(p, bare, got)
		assert.Empty(e.t, got.Content)
	}},
	{"GetNotes returns the notes in the order asked and leaves out missing ids", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("a.md"), mkNote("b.md"), mkNote("c.md"))
		notes, err := e.store.GetNotes(e.ctx, p, []string{"c.md", "missing.md", "a.md", "b.md"})
		require.NoError(e.t, err)
		assert.Equal(e.t, []string{"c.md", "a.md", "b.md"}, noteIDs(notes))
		e.sameNote(p, mkNote("c.md"), notes[0])

		none, err := e.store.GetNotes(e.ctx, p, nil)
		require.NoError(e.t, err)
		assert.Empty(e.t, none)
		none, err = e.store.GetNotes(e.ctx, p, []string{"missing.md"})
		require.NoError(e.t, err)
		assert.Empty(e.t, none)
	}},
	{"GetNote of a missing id returns an error wrapping ErrNotFound", func(e *env) {
		p := e.project()
		_, err := e.store.GetNote(e.ctx, p, "missing.md")
		assert.True(e.t, errors.Is(err, core.ErrNotFound), "empty project: got %v", err)
		e.upsert(p, mkNote("a.md"))
		_, err = e.store.GetNote(e.ctx, p, "missing.md")
		assert.True(e.t, errors.Is(err, core.ErrNotFound), "got %v", err)
	}},
	{"note ids are case-sensitive", func(e *env) {
		p := e.project()
		lower, upper := mkNote("notes/a.md"), mkNote("Notes/A.md")
		upper.Content = "the other spelling"
		e.upsert(p, lower, upper)
		e.sameNote(p, lower, e.get(p, "notes/a.md"))
		e.sameNote(p, upper, e.get(p, "Notes/A.md"))
		_, err := e.store.GetNote(e.ctx, p, "NOTES/A.MD")
		assert.True(e.t, errors.Is(err, core.ErrNotFound), "got %v", err)
		assert.Equal(e.t, 2, e.count(p))
	}},
	{"ResolveTitles maps existing ids to their titles and leaves missing ids out", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("a.md"), mkNote("b.md"))
		titles, err := e.store.ResolveTitles(e.ctx, p, []string{"b.md", "missing.md", "a.md"})
		require.NoError(e.t, err)
		assert.Equal(e.t, map[string]string{"a.md": "Title a.md", "b.md": "Title b.md"}, titles)
		titles, err = e.store.ResolveTitles(e.ctx, p, nil)
		require.NoError(e.t, err)
		assert.Empty(e.t, titles)
	}},
	{"CountNotes counts the notes of the project", func(e *env) {
		p := e.project()
		assert.Equal(e.t, 0, e.count(p))
		e.upsert(p, mkNote("a.md"), mkNote("b.md"), mkNote("c.md"))
		assert.Equal(e.t, 3, e.count(p))
		e.upsert(p, mkNote("a.md")) // replacing adds nothing
		assert.Equal(e.t, 3, e.count(p))
		e.delete(p, "b.md")
		assert.Equal(e.t, 2, e.count(p))
	}},
	{"NoteHashes maps every note id to its current hash", func(e *env) {
		p := e.project()
		hashes, err := e.store.NoteHashes(e.ctx, p)
		require.NoError(e.t, err)
		assert.Empty(e.t, hashes)
		e.upsert(p, mkNote("a.md"), mkNote("b.md"))
		changed := mkNote("a.md")
		changed.Hash = "new-hash"
		e.upsert(p, changed)
		hashes, err = e.store.NoteHashes(e.ctx, p)
		require.NoError(e.t, err)
		assert.Equal(e.t, map[string]string{"a.md": "new-hash", "b.md": "hash-b.md"}, hashes)
	}},
	{"UnresolvedLinkers lists in ID order the notes with an unresolved link of one of the keys", func(e *env) {
		p := e.project()
		e.upsert(p,
			mkNote("c.md", ghost("x")),
			mkNote("a.md", ghost("x"), ghost("y"), ghost("x")),
			mkNote("b.md", ghost("y"), linkTo("a.md")),
			mkNote("d.md", linkTo("b.md")),
		)
		assert.Equal(e.t, []string{"a.md", "c.md"}, e.unresolvedLinkers(p, "x"))
		assert.Equal(e.t, []string{"a.md", "b.md"}, e.unresolvedLinkers(p, "y"))
		assert.Equal(e.t, []string{"a.md", "b.md", "c.md"}, e.unresolvedLinkers(p, "y", "x", "unknown"))
		assert.Empty(e.t, e.unresolvedLinkers(p, "a"), "resolved links are not unresolved")
		assert.Empty(e.t, e.unresolvedLinkers(p, "unknown"))
		assert.Empty(e.t, e.unresolvedLinkers(p))
	}},
	{"mutating a returned note does not change the store", func(e *env) {
		p := e.project()
		rich := richNote()
		e.upsert(p, rich, mkNote("b.md"))
		got := e.get(p, rich.ID)
		got.Title = "changed"
		got.Tags[0] = "changed"
		got.Links[0].Target = "changed.md"
		got.Frontmatter["count"] = 99
		got.Frontmatter["nested"].(map[string]any)["n"] = 99
		got.Frontmatter["list"].([]any)[0] = "changed"
		e.sameNote(p, rich, e.get(p, rich.ID))
	}},
	{"mutating a note after upserting it does not change the store", func(e *env) {
		p := e.project()
		written, want := richNote(), richNote()
		e.upsert(p, written, mkNote("b.md"))
		written.Tags[0] = "changed"
		written.Links[0].Target = "changed.md"
		written.Frontmatter["count"] = 99
		written.Frontmatter["nested"].(map[string]any)["n"] = 99
		e.sameNote(p, want, e.get(p, want.ID))
	}},
}
