package entity_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/entity"
	"github.com/vaultgraph/vaultgraph/memstore"
)

var modTime = time.Date(2025, 5, 6, 7, 8, 9, 0, time.FixedZone("X", 7200))

// note builds a note with frontmatter and the wikilinks the vault would
// have found in it (raws).
func note(path string, fm map[string]any, raws ...string) *core.Note {
	n := &core.Note{ID: strings.ToLower(path), Path: path, Title: strings.TrimSuffix(path[strings.LastIndex(path, "/")+1:], ".md"), Frontmatter: fm, ModTime: modTime}
	for _, r := range raws {
		key := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(r, "[["), "]]"))
		n.Links = append(n.Links, core.Link{Raw: r, Key: key})
	}
	return n
}

func TestDeriveFullEntity(t *testing.T) {
	n := note("Guides/Attention Is All You Need.md", map[string]any{
		"type":              "guide",
		"summary":           "  the transformer  ",
		"status":            "published",
		"difficulty":        "advanced",
		"conceptKind":       "model",
		"repoUrl":           "https://github.com/x/y",
		"repoDefaultBranch": "main",
		"license":           "MIT",
		"canonicalUrl":      "https://x.y/z",
		"publishedAt":       "2024-01-02",
		"archivedAt":        time.Date(2024, 2, 3, 4, 5, 6, 0, time.UTC),
		"createdAt":         "2023-12-01T10:00:00+01:00",
		"comparisonTargets": []any{"[[RNN]]", "[[RNN]]"},
		"relations": map[string]any{
			"GUIDE_USES_CONCEPT":      []any{"[[Attention]]", map[string]any{"target": "[[Softmax]]", "notes": "for weights"}},
			"GUIDE_REFERENCES_SOURCE": "[[Paper]]",
		},
	}, "[[RNN]]", "[[Attention]]", "[[Softmax]]", "[[Paper]]")
	e, warnings := entity.Derive("p", n, entity.Options{})
	require.Empty(t, warnings)
	require.NotNil(t, e)
	assert.Equal(t, entity.ID("p", n.ID), e.ID)
	assert.Equal(t, core.EntityGuide, e.Type)
	assert.Equal(t, "attention-is-all-you-need", e.Slug, "slug defaults to the file name, slugified")
	assert.Equal(t, "the transformer", e.Summary)
	assert.Equal(t, core.StatusPublished, e.Status)
	assert.Equal(t, "advanced", e.Difficulty)
	assert.Equal(t, "model", e.ConceptKind)
	assert.Equal(t, []string{"https://github.com/x/y", "main", "MIT", "https://x.y/z"}, []string{e.RepoURL, e.RepoDefaultBranch, e.License, e.CanonicalURL})
	assert.Equal(t, time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC), *e.PublishedAt)
	assert.Equal(t, time.Date(2024, 2, 3, 4, 5, 6, 0, time.UTC), *e.ArchivedAt)
	assert.Equal(t, time.Date(2023, 12, 1, 9, 0, 0, 0, time.UTC), e.CreatedAt)
	assert.Equal(t, modTime.UTC(), e.UpdatedAt, "updatedAt defaults to the file's modification time")
	assert.Equal(t, []int{0}, e.Comparisons)
	assert.Equal(t, []core.RelationLink{
		{Type: "GUIDE_REFERENCES_SOURCE", Link: 3},
		{Type: "GUIDE_USES_CONCEPT", Link: 1},
		{Type: "GUIDE_USES_CONCEPT", Link: 2, Notes: "for weights"},
	}, e.Relations, "types in sorted order, targets as written")
}

func TestDeriveDefaultsAndIdentity(t *testing.T) {
	n := note("c/BM25.md", map[string]any{"type": "concept"})
	e, warnings := entity.Derive("p", n, entity.Options{})
	require.Empty(t, warnings)
	assert.Equal(t, core.StatusDraft, e.Status)
	assert.Equal(t, "bm25", e.Slug)
	assert.Equal(t, e.UpdatedAt, e.CreatedAt, "createdAt defaults to updatedAt")
	again, _ := entity.Derive("p", n, entity.Options{})
	assert.Equal(t, e.ID, again.ID, "the same note gives the same id every time")
	other, _ := entity.Derive("q", n, entity.Options{})
	assert.NotEqual(t, e.ID, other.ID, "another project gives another id")
	renamed := note("c/bm25-renamed.md", map[string]any{"type": "concept"})
	moved, _ := entity.Derive("p", renamed, entity.Options{})
	assert.NotEqual(t, e.ID, moved.ID, "a rename changes a derived id")

	pinned := note("c/x.md", map[string]any{"type": "concept", "id": "0B8F2B9A-2D1E-4C1B-9F00-AAAAAAAAAAAA", "slug": "custom"})
	p, warnings := entity.Derive("p", pinned, entity.Options{})
	require.Empty(t, warnings)
	assert.Equal(t, "0b8f2b9a-2d1e-4c1b-9f00-aaaaaaaaaaaa", p.ID, "a frontmatter id wins, lowercased")
	assert.Equal(t, "custom", p.Slug)

	custom := note("c/y.md", map[string]any{"kind": "news", "type": "meeting"})
	c, warnings := entity.Derive("p", custom, entity.Options{TypeKey: "kind"})
	require.Empty(t, warnings, "with another type key, type is just frontmatter")
	assert.Equal(t, core.EntityNews, c.Type)

	plain, warnings := entity.Derive("p", note("c/z.md", map[string]any{"title": "x"}), entity.Options{})
	assert.Nil(t, plain)
	assert.Empty(t, warnings)
}

func TestInvalidValuesAreWarningsAndNoEntity(t *testing.T) {
	cases := map[string]map[string]any{
		"type":        {"type": "tutorial"},
		"status":      {"type": "guide", "status": "done"},
		"difficulty":  {"type": "guide", "difficulty": "hard"},
		"conceptKind": {"type": "concept", "conceptKind": "other"},
		"id":          {"type": "guide", "id": "not-a-uuid"},
		"date":        {"type": "guide", "publishedAt": "yesterday"},
		"relation":    {"type": "guide", "relations": map[string]any{"GUIDE_LIKES_CONCEPT": "[[A]]"}},
		"target":      {"type": "guide", "relations": map[string]any{"GUIDE_USES_CONCEPT": "A"}},
		"relations":   {"type": "guide", "relations": []any{"[[A]]"}},
		"slug":        {"type": "guide", "slug": map[string]any{"a": 1}},
		"unlinked":    {"type": "guide", "comparisonTargets": []any{"[[Nowhere]]"}},
		// Issue 25: a relationship that starts at another entity type.
		"source type":   {"type": "concept", "relations": map[string]any{"GUIDE_USES_CONCEPT": "[[A]]"}},
		"distribution":  {"type": "guide", "relations": map[string]any{"DISTRIBUTION_PROMOTES_GUIDE": "[[A]]"}},
		"mapping value": {"type": "guide", "summary": map[string]any{"a": 1}},
	}
	for name, fm := range cases {
		t.Run(name, func(t *testing.T) {
			e, warnings := entity.Derive("p", note("x/n.md", fm, "[[A]]"), entity.Options{})
			assert.Nil(t, e)
			require.NotEmpty(t, warnings)
			assert.True(t, strings.HasPrefix(warnings[0], "x/n.md: entity: "), warnings[0])
			assert.Contains(t, warnings[0], "the note is not an entity")
			for _, w := range warnings {
				assert.NotRegexp(t, `map\[|\[\]interface|\[\]any|string\b.*int|float64`, w, "no Go type names")
			}
		})
	}
	_, warnings := entity.Derive("p", note("x/n.md", map[string]any{"type": "concept", "relations": map[string]any{"GUIDE_USES_CONCEPT": "[[A]]"}}, "[[A]]"), entity.Options{})
	assert.Equal(t, "x/n.md: entity: relations: GUIDE_USES_CONCEPT starts at a guide, and this note is a concept; the note is not an entity", warnings[0])
	_, warnings = entity.Derive("p", note("x/n.md", map[string]any{"type": "guide", "slug": []any{"a"}}), entity.Options{})
	assert.Equal(t, "x/n.md: entity: slug must be a string, got a list; the note is not an entity", warnings[0])
}

// Issue 25: values in another letter case (common in Obsidian) are the
// spec's values, not a silent non-entity.
func TestValuesInAnyLetterCase(t *testing.T) {
	fm := map[string]any{"type": "Guide", "status": "Publish Requested", "difficulty": "Beginner",
		"relations": map[string]any{"guide_uses_concept": "[[A]]", "Guide-References-Source": "[[B]]"}}
	e, warnings := entity.Derive("p", note("x/n.md", fm, "[[A]]", "[[B]]"), entity.Options{})
	require.Empty(t, warnings)
	require.NotNil(t, e)
	assert.Equal(t, core.EntityGuide, e.Type)
	assert.Equal(t, core.EntityStatus("publish_requested"), e.Status)
	assert.Equal(t, "beginner", e.Difficulty)
	require.Len(t, e.Relations, 2)
	assert.Equal(t, core.RelationType("GUIDE_REFERENCES_SOURCE"), e.Relations[0].Type)
	assert.Equal(t, core.RelationType("GUIDE_USES_CONCEPT"), e.Relations[1].Type)
	e, _ = entity.Derive("p", note("x/c.md", map[string]any{"type": "CONCEPT", "conceptKind": "Model", "status": "PUBLISHED"}), entity.Options{})
	require.NotNil(t, e)
	assert.Equal(t, "model", e.ConceptKind)
	assert.Equal(t, core.StatusPublished, e.Status)
}

func TestAnnotatorSetsEntitiesOnWrite(t *testing.T) {
	store := memstore.New()
	var got []string
	a := entity.NewAnnotator(store, entity.Options{}, func(msgs ...string) { got = append(got, msgs...) })
	notes := []core.Note{*note("a.md", map[string]any{"type": "guide"}), *note("b.md", map[string]any{"type": "bogus"})}
	require.NoError(t, a.UpsertNotes(context.Background(), "p", notes))
	assert.Nil(t, notes[0].Entity, "the caller's notes are not modified")
	stored, err := store.GetNote(context.Background(), "p", "a.md")
	require.NoError(t, err)
	require.NotNil(t, stored.Entity)
	assert.Equal(t, core.EntityGuide, stored.Entity.Type)
	b, err := store.GetNote(context.Background(), "p", "b.md")
	require.NoError(t, err)
	assert.Nil(t, b.Entity)
	require.Len(t, got, 1)
	assert.Contains(t, got[0], "bogus")
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Attention Is All You Need": "attention-is-all-you-need",
		"  C++ / Go!  ":             "c-go",
		"Über_Straße 2":             "über-straße-2",
		"---":                       "---",
	} {
		assert.Equal(t, want, entity.Slug(in), in)
	}
}

// Issue 25: createdAt is the frontmatter's, else the first time the note
// was seen (kept by the store), not the mtime that moves on every edit.
func TestCreatedAtIsStable(t *testing.T) {
	ctx := t.Context()
	store := memstore.New()
	a := entity.NewAnnotator(store, entity.Options{}, nil)
	first := note("guide.md", map[string]any{"type": "guide"})
	require.NoError(t, a.UpsertNotes(ctx, "p", []core.Note{*first}))
	id := entity.ID("p", "guide.md")

	edited := note("guide.md", map[string]any{"type": "guide", "summary": "edited"})
	edited.ModTime = modTime.Add(48 * time.Hour)
	require.NoError(t, a.UpsertNotes(ctx, "p", []core.Note{*edited}))
	e, err := store.GetEntity(ctx, "p", id)
	require.NoError(t, err)
	assert.True(t, e.CreatedAt.Equal(modTime), "createdAt %v is still the first sighting", e.CreatedAt)
	assert.True(t, e.UpdatedAt.Equal(modTime.Add(48*time.Hour)), "updatedAt follows the edit")

	given := note("guide.md", map[string]any{"type": "guide", "createdAt": "2020-01-02"})
	given.ModTime = modTime.Add(72 * time.Hour)
	require.NoError(t, a.UpsertNotes(ctx, "p", []core.Note{*given}))
	e, err = store.GetEntity(ctx, "p", id)
	require.NoError(t, err)
	assert.Equal(t, "2020-01-02T00:00:00Z", e.CreatedAt.Format(time.RFC3339), "the frontmatter's createdAt wins")
}

// Issue 25: a relationship whose target is not an entity of the type its
// relationship type names (GUIDE_USES_CONCEPT to a guide) is reported,
// whether the target is written in the same batch or already stored; one
// to the right type, to a kind of record with no entity (a source) or to a
// broken link is not.
func TestRelationToTheWrongTypeIsReported(t *testing.T) {
	ctx := t.Context()
	store := memstore.New()
	var got []string
	a := entity.NewAnnotator(store, entity.Options{}, func(msgs ...string) { got = append(got, msgs...) })
	stored := note("stored guide.md", map[string]any{"type": "guide"})
	require.NoError(t, a.UpsertNotes(ctx, "p", []core.Note{*stored, *note("plain.md", nil)}))
	require.Empty(t, got)

	linked := func(n *core.Note, targets ...string) *core.Note {
		for i := range n.Links {
			n.Links[i].Target = targets[i]
		}
		return n
	}
	src := linked(note("g.md", map[string]any{"type": "guide", "relations": map[string]any{
		"GUIDE_USES_CONCEPT":      []any{"[[Concept]]", "[[Other guide]]", "[[stored guide]]", "[[plain]]", "[[Missing]]"},
		"GUIDE_REFERENCES_SOURCE": "[[plain]]",
	}}, "[[Concept]]", "[[Other guide]]", "[[stored guide]]", "[[plain]]", "[[Missing]]"),
		"concept.md", "other guide.md", "stored guide.md", "plain.md", "")
	batch := []core.Note{*src, *note("concept.md", map[string]any{"type": "Concept"}), *note("other guide.md", map[string]any{"type": "guide"})}
	wctx, collected := core.WithCallWarnings(ctx)
	require.NoError(t, a.UpsertNotes(wctx, "p", batch))
	want := []string{
		"g.md: entity: relations: GUIDE_USES_CONCEPT goes to a concept, and [[Other guide]] is a guide",
		"g.md: entity: relations: GUIDE_USES_CONCEPT goes to a concept, and [[stored guide]] is a guide",
		"g.md: entity: relations: GUIDE_USES_CONCEPT goes to a concept, and [[plain]] is not an entity; the relationship is not in the entity graph",
	}
	assert.Equal(t, want, got)
	assert.Equal(t, want, collected.List(), "the call that wrote the note hears it too")
	n, err := store.GetNote(ctx, "p", "g.md")
	require.NoError(t, err)
	assert.Len(t, n.Entity.Relations, 6, "the relationships are kept as written")
}
