package entities_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/tools/entities"
)

func decode[T any](t *testing.T, raw []byte) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(raw, &v))
	return v
}

func TestListProjects(t *testing.T) {
	f := newFixture(t)
	raw := f.ok(t, entities.ListProjectsName, nil)
	out := decode[entities.ListProjectsOutput](t, raw)
	require.Len(t, out.Projects, 2)
	assert.Equal(t, "alpha vault", out.Projects[0].Name, "name ASC, case-insensitive: alpha before Beta")
	assert.Equal(t, f.alpha.ID, out.Projects[0].ID)
	assert.Equal(t, "first", *out.Projects[0].Description)
	assert.Nil(t, out.Projects[1].Description, "no description is null")
	assert.Equal(t, "2025-06-07T08:09:10Z", out.Projects[0].CreatedAt)
	assert.Contains(t, string(raw), `"description":null`)

	assert.Equal(t, entities.CodeValidationError, f.fail(t, entities.ListProjectsName, map[string]any{"x": 1}).Code)
	assert.JSONEq(t, string(raw), string(f.ok(t, entities.ListProjectsName, map[string]any{})))
}

func TestSearchEntities(t *testing.T) {
	f := newFixture(t)
	out := decode[entities.SearchEntitiesOutput](t, f.ok(t, entities.SearchEntitiesName, map[string]any{"projectId": f.alpha.ID, "query": "ATTENTION"}))
	require.Equal(t, 1, out.TotalCount)
	assert.Equal(t, "Attention (alpha)", out.Entities[0].Title)
	assert.Equal(t, sharedID, out.Entities[0].ID)
	assert.Equal(t, "concept", out.Entities[0].EntityType)
	assert.Equal(t, "draft", out.Entities[0].Status)
	assert.Nil(t, out.Entities[0].Summary)

	bySummary := decode[entities.SearchEntitiesOutput](t, f.ok(t, entities.SearchEntitiesName, map[string]any{"projectId": f.alpha.ID, "query": "start HERE"}))
	require.Equal(t, 1, bySummary.TotalCount)
	assert.Equal(t, "Intro to Transformers", bySummary.Entities[0].Title)

	bySlug := decode[entities.SearchEntitiesOutput](t, f.ok(t, entities.SearchEntitiesName, map[string]any{"projectId": f.alpha.ID, "query": "intro"}))
	require.Equal(t, 1, bySlug.TotalCount)

	// All three alpha entities share updatedAt: ordered by id.
	all := decode[entities.SearchEntitiesOutput](t, f.ok(t, entities.SearchEntitiesName, map[string]any{"projectId": f.alpha.ID, "query": "a"}))
	require.Equal(t, 3, all.TotalCount, "broken.md (invalid status) and plain notes are not entities")
	for i := 1; i < len(all.Entities); i++ {
		assert.Equal(t, all.Entities[0].UpdatedAt, all.Entities[i].UpdatedAt)
		assert.Less(t, all.Entities[i-1].ID, all.Entities[i].ID, "ties on updatedAt by id ASC")
	}
	capped := decode[entities.SearchEntitiesOutput](t, f.ok(t, entities.SearchEntitiesName, map[string]any{"projectId": f.alpha.ID, "query": "a", "limit": 2}))
	assert.Equal(t, 3, capped.TotalCount, "totalCount counts every match")
	assert.Equal(t, all.Entities[:2], capped.Entities)

	typed := decode[entities.SearchEntitiesOutput](t, f.ok(t, entities.SearchEntitiesName, map[string]any{"projectId": f.alpha.ID, "query": "a", "entityTypes": []string{"guide"}}))
	require.Equal(t, 1, typed.TotalCount)
	assert.Equal(t, "guide", typed.Entities[0].EntityType)

	none := f.ok(t, entities.SearchEntitiesName, map[string]any{"projectId": f.alpha.ID, "query": "zzz"})
	assert.JSONEq(t, `{"entities":[],"totalCount":0}`, string(none))
}

func TestGetEntity(t *testing.T) {
	f := newFixture(t)
	raw := f.ok(t, entities.GetEntityName, map[string]any{"projectId": f.alpha.ID, "entityId": f.alphaEntity["Intro to Transformers"]})
	e := decode[entities.GetEntityOutput](t, raw).Entity
	assert.Equal(t, "guide", e.EntityType)
	assert.Equal(t, "intro", e.Slug)
	assert.Equal(t, "published", e.Status)
	assert.Equal(t, "beginner", *e.Difficulty)
	assert.Nil(t, e.ConceptKind)
	assert.Equal(t, "guides/intro.md", *e.ContentRef)
	assert.Equal(t, "2025-01-01T00:00:00Z", e.UpdatedAt)
	assert.Equal(t, entities.RelationshipCounts{Outgoing: 2, Incoming: 0}, e.RelationshipCounts, "the source (a plain note) is left out")
	assert.Equal(t, []string{}, e.ComparisonTargets)
	for _, field := range []string{"summary", "difficulty", "conceptKind", "comparisonTargets", "repoUrl", "repoDefaultBranch", "license", "canonicalUrl", "contentRef", "publishedAt", "archivedAt"} {
		assert.Contains(t, string(raw), `"`+field+`":`, "every field is present, null when absent")
	}

	att := decode[entities.GetEntityOutput](t, f.ok(t, entities.GetEntityName, map[string]any{"projectId": f.alpha.ID, "entityId": strings.ToUpper(sharedID)})).Entity
	assert.Equal(t, "Attention (alpha)", att.Title, "ids match in any letter case")
	assert.Equal(t, []string{f.alphaEntity["softmax"]}, att.ComparisonTargets, "the plain note is no comparison target")
	assert.Equal(t, entities.RelationshipCounts{Outgoing: 1, Incoming: 1}, att.RelationshipCounts)
	assert.Equal(t, "comparison", *att.ConceptKind)
}

func TestGetEntityGraph(t *testing.T) {
	f := newFixture(t)
	intro := f.alphaEntity["Intro to Transformers"]
	out := decode[entities.GetEntityGraphOutput](t, f.ok(t, entities.GetEntityGraphName, map[string]any{"projectId": f.alpha.ID, "entityId": intro}))
	titles := func(ns []entities.GraphNode) []string {
		var s []string
		for _, n := range ns {
			s = append(s, fmt.Sprintf("%d:%s", n.Depth, n.Title))
		}
		return s
	}
	assert.Equal(t, []string{"0:Intro to Transformers", "1:Attention (alpha)", "1:softmax"}, titles(out.Nodes))
	require.Len(t, out.Edges, 2, "the source relation targets no entity; attention->softmax joins two depth-1 nodes")
	for _, e := range out.Edges {
		assert.Equal(t, intro, e.FromEntityID)
		assert.Equal(t, "GUIDE_USES_CONCEPT", e.RelationType)
	}
	deeper := decode[entities.GetEntityGraphOutput](t, f.ok(t, entities.GetEntityGraphName, map[string]any{"projectId": f.alpha.ID, "entityId": intro, "depth": 2}))
	assert.Len(t, deeper.Edges, 3, "at depth 2 the edge between the two neighbours counts")
	filtered := decode[entities.GetEntityGraphOutput](t, f.ok(t, entities.GetEntityGraphName, map[string]any{
		"projectId": f.alpha.ID, "entityId": sharedID, "depth": 2, "relationshipTypes": []string{"CONCEPT_RELATES_TO_CONCEPT"},
	}))
	assert.Equal(t, []string{"0:Attention (alpha)", "1:softmax"}, titles(filtered.Nodes))
	var notes []string
	for _, e := range deeper.Edges {
		if e.Notes != nil {
			notes = append(notes, *e.Notes)
		}
	}
	assert.Equal(t, []string{"weights"}, notes)
}

// Spec 003's isolation: with the same slug (and the same frontmatter id)
// in two projects, every tool asked about alpha answers alpha's data only.
func TestProjectIsolation(t *testing.T) {
	f := newFixture(t)
	search := func(p core.Project, q string) entities.SearchEntitiesOutput {
		return decode[entities.SearchEntitiesOutput](t, f.ok(t, entities.SearchEntitiesName, map[string]any{"projectId": p.ID, "query": q}))
	}
	a, b := search(f.alpha, "attention"), search(f.beta, "attention")
	require.Len(t, a.Entities, 1)
	assert.Equal(t, "Attention (alpha)", a.Entities[0].Title)
	require.Len(t, b.Entities, 2)
	for _, e := range b.Entities {
		assert.NotContains(t, e.Title, "alpha")
	}
	assert.Zero(t, search(f.alpha, "beta").TotalCount)

	shared := map[string]any{"projectId": f.beta.ID, "entityId": sharedID}
	got := decode[entities.GetEntityOutput](t, f.ok(t, entities.GetEntityName, shared)).Entity
	assert.Equal(t, "Attention (beta)", got.Title, "the same id means each project's own entity")
	assert.Equal(t, entities.RelationshipCounts{Outgoing: 0, Incoming: 1}, got.RelationshipCounts)
	graph := decode[entities.GetEntityGraphOutput](t, f.ok(t, entities.GetEntityGraphName, map[string]any{"projectId": f.beta.ID, "entityId": sharedID, "depth": 2}))
	for _, n := range graph.Nodes {
		assert.NotContains(t, n.Title, "alpha")
	}
	assert.Len(t, graph.Nodes, 2)

	// beta's own entity asked through alpha does not exist there.
	betaNews := b.Entities[0].ID
	if b.Entities[0].ID == sharedID {
		betaNews = b.Entities[1].ID
	}
	for _, tool := range []string{entities.GetEntityName, entities.GetEntityGraphName} {
		e := f.fail(t, tool, map[string]any{"projectId": f.alpha.ID, "entityId": betaNews})
		assert.Equal(t, entities.CodeEntityNotFound, e.Code, tool)
		assert.Equal(t, "entityId", e.Details["field"])
	}

	for _, tool := range []string{entities.SearchEntitiesName, entities.GetEntityName, entities.GetEntityGraphName} {
		for name, pid := range map[string]string{"unknown": core.ProjectID("gamma"), "malformed": "alpha", "almost a uuid": sharedID + "0"} {
			args := map[string]any{"projectId": pid, "query": "a", "entityId": sharedID}
			if tool == entities.SearchEntitiesName {
				delete(args, "entityId")
			} else {
				delete(args, "query")
			}
			e := f.fail(t, tool, args)
			assert.Equal(t, entities.CodeProjectNotFound, e.Code, "%s with a %s projectId", tool, name)
			assert.Equal(t, "projectId", e.Details["field"])
		}
	}
}

func TestValidationErrors(t *testing.T) {
	f := newFixture(t)
	pid, eid := f.alpha.ID, sharedID
	cases := []struct {
		tool  string
		args  any
		field string
	}{
		{entities.SearchEntitiesName, map[string]any{"projectId": pid, "query": "a", "extra": true}, "extra"},
		{entities.SearchEntitiesName, map[string]any{"projectId": pid}, "query"}, // issue 25: the missing parameter is named
		{entities.SearchEntitiesName, map[string]any{"query": "a"}, "projectId"},
		{entities.SearchEntitiesName, map[string]any{"projectId": pid, "query": ""}, "query"},
		{entities.SearchEntitiesName, map[string]any{"projectId": pid, "query": strings.Repeat("x", 257)}, "query"},
		{entities.SearchEntitiesName, map[string]any{"projectId": pid, "query": "a", "limit": 0}, "limit"},
		{entities.SearchEntitiesName, map[string]any{"projectId": pid, "query": "a", "limit": 51}, "limit"},
		{entities.SearchEntitiesName, map[string]any{"projectId": pid, "query": "a", "limit": 2.5}, "limit"},
		{entities.SearchEntitiesName, map[string]any{"projectId": pid, "query": "a", "entityTypes": []string{"video"}}, "entityTypes/0"},
		{entities.SearchEntitiesName, map[string]any{"projectId": pid, "query": "a", "entityTypes": []string{"guide", "guide"}}, "entityTypes"},
		{entities.SearchEntitiesName, map[string]any{"projectId": 7, "query": "a"}, "projectId"},
		{entities.SearchEntitiesName, []any{"not", "an", "object"}, ""},
		{entities.GetEntityName, map[string]any{"projectId": pid, "entityId": eid, "depth": 1}, "depth"},
		{entities.GetEntityName, map[string]any{"projectId": pid}, "entityId"},
		{entities.GetEntityGraphName, map[string]any{"entityId": eid}, "projectId"},
		{entities.GetEntityName, map[string]any{"projectId": pid, "entityId": "intro"}, "entityId"},
		{entities.GetEntityGraphName, map[string]any{"projectId": pid, "entityId": eid, "depth": 3}, "depth"},
		{entities.GetEntityGraphName, map[string]any{"projectId": pid, "entityId": eid, "depth": 0}, "depth"},
		{entities.GetEntityGraphName, map[string]any{"projectId": pid, "entityId": eid, "relationshipTypes": []string{"LINKS_TO"}}, "relationshipTypes/0"},
		{entities.GetEntityGraphName, map[string]any{"projectId": pid, "entityId": eid, "relationshipTypes": []string{"PROJECT_HAS_GUIDE", "PROJECT_HAS_GUIDE"}}, "relationshipTypes"},
		{entities.GetEntityGraphName, map[string]any{"projectId": pid, "entityId": eid, "limit": 5}, "limit"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s %v", c.tool, c.args), func(t *testing.T) {
			e := f.fail(t, c.tool, c.args)
			assert.Equal(t, entities.CodeValidationError, e.Code, e.Message)
			assert.Equal(t, c.field, e.Details["field"], e.Message)
			assert.NotEmpty(t, e.Details["errors"])
		})
	}
	// Every maximum holds exactly at the limit.
	f.ok(t, entities.SearchEntitiesName, map[string]any{"projectId": pid, "query": strings.Repeat("x", 256), "limit": 50, "entityTypes": []string{"guide", "concept", "project", "news"}})
	f.ok(t, entities.GetEntityGraphName, map[string]any{"projectId": pid, "entityId": eid, "depth": 2, "relationshipTypes": []string{}})
}

// slowReader blocks until the call's context ends.
type slowReader struct{ core.EntityReader }

func (slowReader) SearchEntities(ctx context.Context, _ string, _ core.EntityQuery) (core.EntitySearchResult, error) {
	<-ctx.Done()
	return core.EntitySearchResult{}, fmt.Errorf("slow: %w", ctx.Err())
}

// brokenReader fails like a store that is down.
type brokenReader struct{ core.EntityReader }

func (brokenReader) GetEntity(context.Context, string, string) (*core.Entity, error) {
	return nil, core.NewProviderError("get entity", errors.New("dial tcp 10.0.0.1:7687: connection refused"))
}

func TestTimeoutAndStoreFailuresAreInternalErrors(t *testing.T) {
	f := newFixture(t)
	d := f.deps
	d.Entities, d.Timeout = slowReader{}, 50*time.Millisecond
	start := time.Now()
	raw, isErr := callTool(t, entities.Tools(d)[1], map[string]any{"projectId": f.alpha.ID, "query": "a"})
	require.True(t, isErr)
	e := envelope(t, raw)
	assert.Equal(t, entities.CodeInternalError, e.Code)
	assert.Less(t, time.Since(start), 5*time.Second)

	d.Entities, d.Timeout = brokenReader{}, 0
	raw, isErr = callTool(t, entities.Tools(d)[2], map[string]any{"projectId": f.alpha.ID, "entityId": sharedID})
	require.True(t, isErr)
	e = envelope(t, raw)
	assert.Equal(t, entities.CodeInternalError, e.Code)
	assert.NotContains(t, string(raw), "10.0.0.1", "the cause is logged, never shown")
}

// A dense graph: the root guide uses 40 concepts, each related to 8 other
// concepts and to 6 of 150 deeper ones.
func denseVault() map[string]string {
	files := map[string]string{}
	var root strings.Builder
	root.WriteString("---\ntype: guide\ntitle: Root\nupdatedAt: 2025-01-01T00:00:00Z\nrelations:\n  GUIDE_USES_CONCEPT:\n")
	for i := range 40 {
		fmt.Fprintf(&root, "    - \"[[c%02d]]\"\n", i)
		var c strings.Builder
		fmt.Fprintf(&c, "---\ntype: concept\ntitle: Concept %02d\nupdatedAt: 2025-01-01T00:00:00Z\nrelations:\n  CONCEPT_RELATES_TO_CONCEPT:\n", (i*17)%40)
		for k := 1; k <= 8; k++ {
			fmt.Fprintf(&c, "    - \"[[c%02d]]\"\n", (i+k)%40)
		}
		for j := range 6 {
			fmt.Fprintf(&c, "    - \"[[d%03d]]\"\n", (i*11+j*23)%150)
		}
		c.WriteString("---\n")
		files[fmt.Sprintf("c%02d.md", i)] = c.String()
	}
	root.WriteString("---\n")
	files["root.md"] = root.String()
	for i := range 150 {
		files[fmt.Sprintf("d%03d.md", i)] = fmt.Sprintf("---\ntype: concept\ntitle: deep %03d\nupdatedAt: 2025-01-01T00:00:00Z\n---\n", (i*7)%150)
	}
	return files
}

func TestDenseGraphIsCappedDeterministically(t *testing.T) {
	store := memstore.New()
	p := core.Project{Key: "dense", ID: core.ProjectID("dense"), Name: "dense", Slug: "dense"}
	f := &fixture{warnings: nil}
	mirror(t, store, p.Key, denseVault(), vaultWarnings())
	d := entities.Deps{Projects: core.NewProjectCatalog(store, []core.Project{p}), Entities: store, Logger: quietLogger()}
	graph := entities.Tools(d)[3]
	f.outputSchema = outputSchemas(t)
	search := entities.Tools(d)[1]
	raw, isErr := callTool(t, search, map[string]any{"projectId": p.ID, "query": "root"})
	require.False(t, isErr, "%s", raw)
	rootID := decode[entities.SearchEntitiesOutput](t, raw).Entities[0].ID

	args := map[string]any{"projectId": p.ID, "entityId": rootID, "depth": 2}
	first, isErr := callTool(t, graph, args)
	require.False(t, isErr, "%s", first)
	requireValid(t, f.outputSchema[entities.GetEntityGraphName], first)
	out := decode[entities.GetEntityGraphOutput](t, first)
	assert.Len(t, out.Nodes, entities.MaxGraphNodes)
	assert.Len(t, out.Edges, entities.MaxGraphEdges)
	for i := 1; i < len(out.Nodes); i++ {
		a, b := out.Nodes[i-1], out.Nodes[i]
		assert.True(t, a.Depth < b.Depth || a.Depth == b.Depth && strings.ToLower(a.Title) <= strings.ToLower(b.Title), "node %d ordered", i)
	}
	for i := 1; i < len(out.Edges); i++ {
		a, b := out.Edges[i-1], out.Edges[i]
		assert.True(t, a.FromEntityID < b.FromEntityID || a.FromEntityID == b.FromEntityID && a.ToEntityID <= b.ToEntityID, "edge %d ordered", i)
	}
	for range 3 {
		again, _ := callTool(t, graph, args)
		assert.Equal(t, string(first), string(again), "same input, byte-identical output")
	}
}
