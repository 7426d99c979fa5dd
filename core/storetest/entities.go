package storetest

import (
	"fmt"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// Entity builders. entNote("g.md", "guide") is a note whose entity ID is
// entityID("g.md"), slug "slug-g", updated at baseTime.

// entityID is a fixed UUID per note ID, the same in every project, so
// isolation tests can ask one project for another's entity.
func entityID(noteID string) string { return core.NameUUID("storetest\x00" + noteID) }

func entNote(id string, typ core.EntityType, links ...core.Link) core.Note {
	n := mkNote(id, links...)
	n.Entity = &core.NoteEntity{
		ID:        entityID(id),
		Type:      typ,
		Slug:      "slug-" + keyOf(id),
		Status:    core.StatusDraft,
		CreatedAt: baseTime.UTC(),
		UpdatedAt: baseTime.UTC(),
	}
	return n
}

// relate adds a relationship of type typ from n to the note id, through a
// new link [[id]] (resolved when target is true).
func relate(n core.Note, typ core.RelationType, id string, resolved bool) core.Note {
	l := ghost(keyOf(id))
	if resolved {
		l = linkTo(id)
	}
	n.Links = append(n.Links, l)
	n.Entity.Relations = append(n.Entity.Relations, core.RelationLink{Type: typ, Link: len(n.Links) - 1, Notes: "from " + n.ID})
	return n
}

func (e *env) search(project string, q core.EntityQuery) core.EntitySearchResult {
	e.t.Helper()
	r, err := e.store.SearchEntities(e.ctx, project, q)
	require.NoError(e.t, err, "search entities %+v", q)
	return r
}

func (e *env) entity(project, noteID string) *core.Entity {
	e.t.Helper()
	got, err := e.store.GetEntity(e.ctx, project, entityID(noteID))
	require.NoError(e.t, err, "get entity of %s", noteID)
	return got
}

func (e *env) entityGraph(project, noteID string, q core.EntityGraphQuery) *core.EntityGraph {
	e.t.Helper()
	g, err := e.store.EntityGraph(e.ctx, project, entityID(noteID), q)
	require.NoError(e.t, err, "entity graph of %s", noteID)
	return g
}

func summaryIDs(s []core.EntitySummary) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = x.ID
	}
	return out
}

// graphKeys renders nodes as "depth:title" and edges as "from>to:type"
// with note IDs instead of UUIDs, so failures are readable.
func graphKeys(g *core.EntityGraph, noteIDs ...string) (nodes, edges []string) {
	name := map[string]string{}
	for _, id := range noteIDs {
		name[entityID(id)] = id
	}
	for _, n := range g.Nodes {
		nodes = append(nodes, fmt.Sprintf("%d:%s", n.Depth, name[n.ID]))
	}
	for _, ed := range g.Edges {
		edges = append(edges, fmt.Sprintf("%s>%s:%s", name[ed.From], name[ed.To], ed.Type))
	}
	return nodes, edges
}

const (
	usesConcept    core.RelationType = "GUIDE_USES_CONCEPT"
	relatesConcept core.RelationType = "CONCEPT_RELATES_TO_CONCEPT"
	hasGuide       core.RelationType = "PROJECT_HAS_GUIDE"
)

var fullGraph = core.EntityGraphQuery{Depth: 2, MaxNodes: 100, MaxEdges: 200}

var entityCases = []testCase{
	{"a note keeps its entity: GetNote returns it, a rewrite without one drops it", func(e *env) {
		p := e.project()
		n := relate(entNote("a.md", core.EntityGuide), usesConcept, "b.md", false)
		pub := time.Date(2024, 1, 2, 3, 4, 5, 6, time.FixedZone("X", -3600))
		n.Entity.PublishedAt = &pub
		n.Entity.Comparisons = []int{0}
		e.upsert(p, n)
		e.sameNote(p, n, e.get(p, "a.md"))
		plain := mkNote("a.md")
		e.upsert(p, plain)
		e.sameNote(p, plain, e.get(p, "a.md"))
		_, err := e.store.GetEntity(e.ctx, p, entityID("a.md"))
		assert.ErrorIs(e.t, err, core.ErrNotFound)
	}},
	{"search matches title, slug and summary case-insensitively, newest first, ties by id", func(e *env) {
		p := e.project()
		a := entNote("a.md", core.EntityGuide)
		a.Title = "Attention Guide"
		b := entNote("b.md", core.EntityConcept)
		b.Entity.Slug = "self-ATTENTION"
		c := entNote("c.md", core.EntityNews)
		c.Entity.Summary = "all about attention"
		c.Entity.UpdatedAt = baseTime.UTC().Add(time.Hour)
		d := entNote("d.md", core.EntityConcept) // no match
		plain := mkNote("attention.md")          // not an entity
		e.upsert(p, a, b, c, d, plain)

		got := e.search(p, core.EntityQuery{Text: "ATTENTION", Limit: 50})
		assert.Equal(e.t, 3, got.Total)
		// c is newest; a and b tie on updatedAt and go by id.
		want := []string{entityID("c.md")}
		if entityID("a.md") < entityID("b.md") {
			want = append(want, entityID("a.md"), entityID("b.md"))
		} else {
			want = append(want, entityID("b.md"), entityID("a.md"))
		}
		assert.Equal(e.t, want, summaryIDs(got.Entities))
		assert.Equal(e.t, "Attention Guide", got.Entities[slicesIndex(want, entityID("a.md"))].Title)

		limited := e.search(p, core.EntityQuery{Text: "attention", Limit: 1})
		assert.Equal(e.t, 3, limited.Total, "totalCount counts every match")
		assert.Equal(e.t, want[:1], summaryIDs(limited.Entities))

		typed := e.search(p, core.EntityQuery{Text: "attention", Types: []core.EntityType{core.EntityConcept, core.EntityNews}, Limit: 50})
		assert.Equal(e.t, 2, typed.Total)
		assert.NotContains(e.t, summaryIDs(typed.Entities), entityID("a.md"))

		none := e.search(p, core.EntityQuery{Text: "nothing like it", Limit: 50})
		assert.Equal(e.t, 0, none.Total)
		assert.Empty(e.t, none.Entities)
	}},
	{"get entity returns every field, comparison targets and distinct relationship counts", func(e *env) {
		p := e.project()
		pub := baseTime.UTC().Add(-time.Hour)
		g := entNote("g.md", core.EntityConcept)
		g.Path = "Concepts/G.md"
		g.Entity.Summary = "sum"
		g.Entity.Status = core.StatusPublished
		g.Entity.ConceptKind = "comparison"
		g.Entity.Difficulty = "advanced"
		g.Entity.RepoURL, g.Entity.RepoDefaultBranch, g.Entity.License, g.Entity.CanonicalURL = "https://r", "main", "MIT", "https://c"
		g.Entity.PublishedAt = &pub
		g = relate(g, relatesConcept, "x.md", true)
		g = relate(g, relatesConcept, "x.md", true) // the same pair again: counted once
		g = relate(g, usesConcept, "x.md", true)    // another type: counted
		g = relate(g, relatesConcept, "plain.md", true)
		g = relate(g, relatesConcept, "missing.md", false)
		g.Links = append(g.Links, linkTo("x.md"), linkTo("plain.md"))
		g.Entity.Comparisons = []int{len(g.Links) - 2, len(g.Links) - 1}
		x := relate(entNote("x.md", core.EntityConcept), relatesConcept, "g.md", true)
		y := relate(entNote("y.md", core.EntityGuide), usesConcept, "g.md", true)
		e.upsert(p, g, x, y, mkNote("plain.md"))

		got := e.entity(p, "g.md")
		assert.Equal(e.t, entityID("g.md"), got.ID)
		assert.Equal(e.t, core.EntityConcept, got.Type)
		assert.Equal(e.t, "Title g.md", got.Title)
		assert.Equal(e.t, "slug-g", got.Slug)
		assert.Equal(e.t, "sum", got.Summary)
		assert.Equal(e.t, core.StatusPublished, got.Status)
		assert.Equal(e.t, "comparison", got.ConceptKind)
		assert.Equal(e.t, "advanced", got.Difficulty)
		assert.Equal(e.t, "Concepts/G.md", got.ContentRef)
		assert.Equal(e.t, []string{"https://r", "main", "MIT", "https://c"}, []string{got.RepoURL, got.RepoDefaultBranch, got.License, got.CanonicalURL})
		require.NotNil(e.t, got.PublishedAt)
		assert.True(e.t, pub.Equal(*got.PublishedAt))
		assert.Nil(e.t, got.ArchivedAt)
		assert.True(e.t, baseTime.Equal(got.CreatedAt) && baseTime.Equal(got.UpdatedAt))
		assert.Equal(e.t, []string{entityID("x.md")}, got.ComparisonTargets, "a comparison with a plain note is left out")
		assert.Equal(e.t, 2, got.Outgoing, "x twice by one type and once by another; plain and missing notes are no entities")
		assert.Equal(e.t, 2, got.Incoming)
	}},
	{"an unknown entity, a plain note and another project's entity are not found", func(e *env) {
		p, other := e.project(), e.project()
		e.upsert(p, entNote("a.md", core.EntityGuide), mkNote("plain.md"))
		e.upsert(other, entNote("b.md", core.EntityGuide))
		for _, id := range []string{entityID("zz.md"), entityID("plain.md"), entityID("b.md")} {
			_, err := e.store.GetEntity(e.ctx, p, id)
			assert.ErrorIs(e.t, err, core.ErrNotFound)
			_, err = e.store.EntityGraph(e.ctx, p, id, fullGraph)
			assert.ErrorIs(e.t, err, core.ErrNotFound)
		}
	}},
	{"two projects with the same entities never mix", func(e *env) {
		one, two := e.project(), e.project()
		a1 := relate(entNote("a.md", core.EntityGuide), usesConcept, "b.md", true)
		a1.Title = "alpha one"
		a2 := entNote("a.md", core.EntityGuide)
		a2.Title = "alpha two"
		a2.Entity.Slug = "slug-a"
		e.upsert(one, a1, entNote("b.md", core.EntityConcept))
		e.upsert(two, a2)

		r1 := e.search(one, core.EntityQuery{Text: "alpha", Limit: 50})
		r2 := e.search(two, core.EntityQuery{Text: "alpha", Limit: 50})
		require.Len(e.t, r1.Entities, 1)
		require.Len(e.t, r2.Entities, 1)
		assert.Equal(e.t, "alpha one", r1.Entities[0].Title)
		assert.Equal(e.t, "alpha two", r2.Entities[0].Title)
		assert.Equal(e.t, 1, e.entity(one, "a.md").Outgoing)
		assert.Equal(e.t, 0, e.entity(two, "a.md").Outgoing)
		nodes, _ := graphKeys(e.entityGraph(two, "a.md", fullGraph), "a.md", "b.md")
		assert.Equal(e.t, []string{"0:a.md"}, nodes)
		nodes, _ = graphKeys(e.entityGraph(one, "a.md", fullGraph), "a.md", "b.md")
		assert.Equal(e.t, []string{"0:a.md", "1:b.md"}, nodes)
	}},
	{"the note with the smallest id keeps an entity id two notes claim", func(e *env) {
		p := e.project()
		first := entNote("a.md", core.EntityGuide)
		second := entNote("b.md", core.EntityConcept)
		second.Entity.ID = first.Entity.ID
		e.upsert(p, second, first)
		got, err := e.store.GetEntity(e.ctx, p, first.Entity.ID)
		require.NoError(e.t, err)
		assert.Equal(e.t, "Title a.md", got.Title)
		assert.Equal(e.t, 1, e.search(p, core.EntityQuery{Text: "title", Limit: 50}).Total)
		e.delete(p, "a.md")
		got, err = e.store.GetEntity(e.ctx, p, first.Entity.ID)
		require.NoError(e.t, err)
		assert.Equal(e.t, "Title b.md", got.Title, "the other note is the entity once the first is gone")
	}},
	{"relationships follow link resolution: a later note resolves them, a deleted one drops them", func(e *env) {
		p := e.project()
		g := relate(entNote("g.md", core.EntityGuide), usesConcept, "c.md", false)
		e.upsert(p, g)
		assert.Equal(e.t, 0, e.entity(p, "g.md").Outgoing)
		e.upsert(p, entNote("c.md", core.EntityConcept))
		assert.Equal(e.t, 1, e.entity(p, "g.md").Outgoing)
		assert.Equal(e.t, 1, e.entity(p, "c.md").Incoming)
		_, edges := graphKeys(e.entityGraph(p, "g.md", fullGraph), "g.md", "c.md")
		assert.Equal(e.t, []string{"g.md>c.md:GUIDE_USES_CONCEPT"}, edges)

		plain := mkNote("c.md") // c stops being an entity
		e.upsert(p, plain)
		assert.Equal(e.t, 0, e.entity(p, "g.md").Outgoing)
		e.upsert(p, entNote("c.md", core.EntityConcept))
		assert.Equal(e.t, 1, e.entity(p, "g.md").Outgoing)
		e.delete(p, "c.md")
		assert.Equal(e.t, 0, e.entity(p, "g.md").Outgoing)
		nodes, edges := graphKeys(e.entityGraph(p, "g.md", fullGraph), "g.md", "c.md")
		assert.Equal(e.t, []string{"0:g.md"}, nodes)
		assert.Empty(e.t, edges)
	}},
	{"entity graph walks both directions by depth, filters types and orders nodes and edges", func(e *env) {
		p := e.project()
		// root r: r -uses-> b ("Beta"), a -hasGuide-> r ("alpha"); b -relates-> c; c -relates-> d (depth 3);
		// a -uses-> b (an edge between two depth-1 nodes); x is unrelated.
		r := entNote("r.md", core.EntityGuide)
		r = relate(r, usesConcept, "b.md", true)
		a := relate(entNote("a.md", core.EntityProject), hasGuide, "r.md", true)
		a.Title = "alpha"
		a = relate(a, usesConcept, "b.md", true)
		b := relate(entNote("b.md", core.EntityConcept), relatesConcept, "c.md", true)
		b.Title = "Beta"
		c := relate(entNote("c.md", core.EntityConcept), relatesConcept, "d.md", true)
		d := entNote("d.md", core.EntityConcept)
		x := entNote("x.md", core.EntityConcept)
		e.upsert(p, r, a, b, c, d, x)
		names := []string{"r.md", "a.md", "b.md", "c.md", "d.md", "x.md"}

		nodes, edges := graphKeys(e.entityGraph(p, "r.md", core.EntityGraphQuery{Depth: 1, MaxNodes: 100, MaxEdges: 200}), names...)
		assert.Equal(e.t, []string{"0:r.md", "1:a.md", "1:b.md"}, nodes, "depth, then title case-insensitively")
		wantEdges := sortedEdges(map[string]string{"a.md>r.md:PROJECT_HAS_GUIDE": entityID("a.md") + entityID("r.md"), "r.md>b.md:GUIDE_USES_CONCEPT": entityID("r.md") + entityID("b.md")})
		assert.Equal(e.t, wantEdges, edges, "no edge between two depth-1 nodes at depth 1")

		nodes, edges = graphKeys(e.entityGraph(p, "r.md", fullGraph), names...)
		assert.Equal(e.t, []string{"0:r.md", "1:a.md", "1:b.md", "2:c.md"}, nodes)
		assert.Len(e.t, edges, 4)
		assert.Contains(e.t, edges, "a.md>b.md:GUIDE_USES_CONCEPT")
		assert.Contains(e.t, edges, "b.md>c.md:CONCEPT_RELATES_TO_CONCEPT")

		nodes, edges = graphKeys(e.entityGraph(p, "r.md", core.EntityGraphQuery{Depth: 2, Types: []core.RelationType{usesConcept}, MaxNodes: 100, MaxEdges: 200}), names...)
		assert.Equal(e.t, []string{"0:r.md", "1:b.md", "2:a.md"}, nodes, "only GUIDE_USES_CONCEPT is followed")
		assert.Equal(e.t, sortedEdges(map[string]string{"r.md>b.md:GUIDE_USES_CONCEPT": entityID("r.md") + entityID("b.md"), "a.md>b.md:GUIDE_USES_CONCEPT": entityID("a.md") + entityID("b.md")}), edges)
		g := e.entityGraph(p, "r.md", fullGraph)
		for _, ed := range g.Edges {
			assert.Equal(e.t, "from "+map[string]string{entityID("r.md"): "r.md", entityID("a.md"): "a.md", entityID("b.md"): "b.md", entityID("c.md"): "c.md"}[ed.From], ed.Notes)
		}
	}},
	{"a dense entity graph is capped at the limits, the same way every time", func(e *env) {
		p := e.project()
		// root links 30 concepts; each links 8 of the others and 5 of 200
		// deeper ones: depth 2 has far more than 100 nodes and 200 edges.
		root := entNote("root.md", core.EntityGuide)
		var notes []core.Note
		for i := range 30 {
			id := fmt.Sprintf("c%02d.md", i)
			root = relate(root, usesConcept, id, true)
			n := entNote(id, core.EntityConcept)
			n.Title = fmt.Sprintf("Concept %02d", 29-i)
			for k := 1; k <= 8; k++ {
				n = relate(n, relatesConcept, fmt.Sprintf("c%02d.md", (i+k)%30), true)
			}
			for j := range 5 {
				n = relate(n, relatesConcept, fmt.Sprintf("d%03d.md", (i*7+j*13)%200), true)
			}
			notes = append(notes, n)
		}
		for i := range 200 {
			n := entNote(fmt.Sprintf("d%03d.md", i), core.EntityConcept)
			n.Title = fmt.Sprintf("deep %03d", (i*37)%200)
			notes = append(notes, n)
		}
		e.upsert(p, append(notes, root)...)
		q := core.EntityGraphQuery{Depth: 2, MaxNodes: 100, MaxEdges: 200}
		first := e.entityGraph(p, "root.md", q)
		require.Len(e.t, first.Nodes, 100)
		require.Len(e.t, first.Edges, 200)
		assert.Equal(e.t, entityID("root.md"), first.Nodes[0].ID)
		assert.Equal(e.t, "Concept 00", first.Nodes[1].Title)
		assert.Equal(e.t, 1, first.Nodes[30].Depth)
		assert.Equal(e.t, "deep 000", first.Nodes[31].Title)
		kept := map[string]bool{}
		for _, n := range first.Nodes {
			kept[n.ID] = true
		}
		for i, ed := range first.Edges {
			assert.True(e.t, kept[ed.From] && kept[ed.To], "edge %d joins kept nodes", i)
			if i > 0 {
				prev := first.Edges[i-1]
				assert.True(e.t, prev.From < ed.From || prev.From == ed.From && prev.To <= ed.To, "edges ordered")
			}
		}
		again := e.entityGraph(p, "root.md", q)
		assert.Equal(e.t, first, again)
	}},
	{"project records round-trip", func(e *env) {
		key := e.project()
		at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
		rec := core.Project{Key: key, ID: core.NameUUID(key), Name: "N", Slug: "n", Description: "d", Host: "laptop", Path: "/home/me/notes", CreatedAt: at, UpdatedAt: at.Add(time.Hour)}
		require.NoError(e.t, e.store.SaveProject(e.ctx, rec))
		rec.Name = "renamed"
		require.NoError(e.t, e.store.SaveProject(e.ctx, rec))
		all, err := e.store.ListProjects(e.ctx)
		require.NoError(e.t, err)
		var found []core.Project
		for _, p := range all {
			if p.ID == rec.ID {
				found = append(found, p)
			}
		}
		require.Len(e.t, found, 1)
		assert.Equal(e.t, rec.Key, found[0].Key)
		assert.Equal(e.t, "renamed", found[0].Name)
		assert.Equal(e.t, "laptop", found[0].Host)
		assert.Equal(e.t, "/home/me/notes", found[0].Path)
		assert.True(e.t, at.Equal(found[0].CreatedAt))
		assert.True(e.t, at.Add(time.Hour).Equal(found[0].UpdatedAt))
	}},
}

// sortedEdges orders edge labels by their (from, to) entity IDs, as stores
// must: the map goes label -> from+to UUIDs.
func sortedEdges(m map[string]string) []string {
	var labels []string
	for l := range m {
		labels = append(labels, l)
	}
	for i := range labels {
		for j := i + 1; j < len(labels); j++ {
			if m[labels[j]] < m[labels[i]] {
				labels[i], labels[j] = labels[j], labels[i]
			}
		}
	}
	return labels
}

func slicesIndex(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
