package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vaultgraph/vaultgraph/tools/entities"
)

// The entity toolset (spec 003) through the real binary: two vaults served
// as two projects by one server, both holding an entity with slug
// "attention" and the same frontmatter id.
const sharedEntityID = "7a0c1d2e-3f40-4152-8637-48596a7b8c9d"

func alphaVault() map[string]string {
	files := map[string]string{
		"Intro.md": "---\ntype: guide\nsummary: where to start\nupdatedAt: 2025-03-01T00:00:00Z\nrelations:\n" +
			"  GUIDE_USES_CONCEPT: [\"[[Attention]]\"]\n  GUIDE_REFERENCES_SOURCE: [\"[[Paper]]\"]\n---\nRead [[Attention]].\n",
		"concepts/Attention.md": "---\ntype: concept\nid: " + sharedEntityID + "\ntitle: Attention (alpha)\nslug: attention\n" +
			"updatedAt: 2025-03-01T00:00:00Z\n---\n",
		"Paper.md":   "A source, not an entity.\n",
		"Broken.md":  "---\ntype: guide\ndifficulty: impossible\n---\nan invalid value: no entity\n",
		"dense/R.md": denseRoot(),
	}
	for i := range 30 {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntype: concept\ntitle: Dense %02d\nupdatedAt: 2025-01-01T00:00:00Z\nrelations:\n  CONCEPT_RELATES_TO_CONCEPT:\n", (i*7)%30)
		for k := 1; k <= 8; k++ {
			fmt.Fprintf(&b, "    - \"[[D%02d]]\"\n", (i+k)%30)
		}
		for j := range 5 {
			fmt.Fprintf(&b, "    - \"[[E%03d]]\"\n", (i*5+j)%120)
		}
		b.WriteString("---\n")
		files[fmt.Sprintf("dense/D%02d.md", i)] = b.String()
	}
	for i := range 120 {
		files[fmt.Sprintf("dense/E%03d.md", i)] = fmt.Sprintf("---\ntype: news\ntitle: Edge %03d\nupdatedAt: 2025-01-01T00:00:00Z\n---\n", (i*11)%120)
	}
	return files
}

func denseRoot() string {
	var b strings.Builder
	b.WriteString("---\ntype: project\ntitle: Dense root\nupdatedAt: 2025-01-01T00:00:00Z\nrelations:\n  PROJECT_IMPLEMENTS_CONCEPT:\n")
	for i := range 30 {
		fmt.Fprintf(&b, "    - \"[[D%02d]]\"\n", i)
	}
	b.WriteString("---\n")
	return b.String()
}

var betaVault = map[string]string{
	"Attention.md": "---\ntype: concept\nid: " + sharedEntityID + "\ntitle: Attention (beta)\nslug: attention\nsummary: beta's own\n---\n",
	"News.md":      "---\ntype: news\ntitle: Beta news\nrelations:\n  NEWS_REFERENCES_CONCEPT: [\"[[Attention]]\"]\n---\n",
}

// entityVaults writes both vaults and a config file serving them as
// projects alpha and beta; it returns the config file's path.
func entityVaults(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, files := range map[string]map[string]string{"alpha": alphaVault(), "beta": betaVault} {
		for rel, content := range files {
			writeFile(t, filepath.Join(dir, name), rel, content)
		}
	}
	cfg := filepath.Join(dir, "vaultgraph.yaml")
	yaml := "projects:\n" +
		"  - {path: alpha, name: Alpha, slug: alpha, description: the first vault}\n" +
		"  - {path: beta, name: beta, slug: beta}\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// entityClient serves the two vaults over stdio with st; viaEnv enables
// the toolset with VAULTGRAPH_TOOLSETS instead of --toolsets.
func entityClient(t *testing.T, st store, cfg string, viaEnv bool) *client.Client {
	t.Helper()
	args := append([]string{"serve", "--config", cfg}, st.args...)
	var extra []string
	if viaEnv {
		extra = append(extra, "VAULTGRAPH_TOOLSETS=graph,kb,entities")
	} else {
		args = append(args, "--toolsets", "graph,kb,entities")
	}
	c, _ := stdioClient(t, processEnv(t, st, extra...), args)
	initialize(t, c)
	waitSynced(t, c)
	return c
}

// specOutput checks answers against spec 003's output schemas, formats
// (uuid, date-time) asserted.
type specOutput map[string]*jsonschema.Schema

func newSpecOutput(t *testing.T) specOutput {
	t.Helper()
	out := specOutput{}
	for _, spec := range entities.Specs() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(entities.Schema(spec.Name, "output")))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if err := c.AddResource("mem:///"+spec.Name, doc); err != nil {
			t.Fatal(err)
		}
		if out[spec.Name], err = c.Compile("mem:///" + spec.Name); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// ok calls a tool that must succeed, checks the answer against the spec's
// output schema and decodes it into v (nil: not decoded); it returns the
// answer's text.
func (s specOutput) ok(t *testing.T, c *client.Client, name string, args, v any) string {
	t.Helper()
	r := callTool(t, c, name, args)
	if r.isError {
		t.Fatalf("%s %v: %s", name, args, r.text)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(r.text))
	if err != nil {
		t.Fatal(err)
	}
	if err := s[name].Validate(inst); err != nil {
		t.Fatalf("%s answer does not satisfy the spec's output schema: %v\n%s", name, err, r.text)
	}
	if v != nil {
		r.decode(t, v)
	}
	return r.text
}

func TestEntityTools(t *testing.T) {
	t.Parallel()
	schemas := newSpecOutput(t)
	forEachStore(t, func(t *testing.T, st store) {
		cfg := entityVaults(t)
		c := entityClient(t, st, cfg, st.neo4j != nil)

		listed := map[string]bool{}
		for _, tool := range listTools(t, c) {
			published, err := json.Marshal(tool)
			if err != nil {
				t.Fatal(err)
			}
			listed[tool.Name] = tool.Annotations.ReadOnlyHint != nil && *tool.Annotations.ReadOnlyHint && bytes.Contains(published, []byte(`"outputSchema":{`))
		}
		for _, name := range []string{"list_projects", "search_entities", "get_entity", "get_entity_graph"} {
			if !listed[name] {
				t.Errorf("%s is not listed as a read-only tool with an output schema", name)
			}
		}

		// A note written with an invalid entity value: a warning of the
		// call that wrote it (and only of that call).
		created := callTool(t, c, "create_node", map[string]any{"title": "Broken Guide", "content": "---\ntype: guide\ndifficulty: impossible\n---\nbody"})
		if !slices.ContainsFunc(created.warnings, func(w string) bool { return strings.Contains(w, ": entity: difficulty") }) {
			t.Errorf("create_node warnings %q lack the invalid difficulty", created.warnings)
		}
		if hubs := callTool(t, c, "get_hubs", map[string]any{"metric": "in_degree", "limit": 1}); len(hubs.warnings) > 0 {
			t.Errorf("a read carries another call's warnings: %q", hubs.warnings)
		}

		var projects entities.ListProjectsOutput
		schemas.ok(t, c, "list_projects", map[string]any{}, &projects)
		if len(projects.Projects) != 2 || projects.Projects[0].Name != "Alpha" || projects.Projects[1].Name != "beta" {
			t.Fatalf("projects = %+v, want Alpha then beta", projects.Projects)
		}
		alpha, beta := projects.Projects[0].ID, projects.Projects[1].ID

		var found entities.SearchEntitiesOutput
		schemas.ok(t, c, "search_entities", map[string]any{"projectId": alpha, "query": "attention"}, &found)
		if found.TotalCount != 1 || found.Entities[0].Title != "Attention (alpha)" {
			t.Errorf("alpha's attention search = %+v", found)
		}
		schemas.ok(t, c, "search_entities", map[string]any{"projectId": beta, "query": "ATTENTION"}, &found)
		if found.TotalCount != 1 || found.Entities[0].Title != "Attention (beta)" {
			t.Errorf("beta's attention search = %+v", found)
		}
		schemas.ok(t, c, "search_entities", map[string]any{"projectId": alpha, "query": "dense", "limit": 5}, &found)
		if found.TotalCount != 31 || len(found.Entities) != 5 {
			t.Errorf("dense search: total %d, %d entities; want 31 and 5", found.TotalCount, len(found.Entities))
		}

		var got entities.GetEntityOutput
		schemas.ok(t, c, "get_entity", map[string]any{"projectId": beta, "entityId": sharedEntityID}, &got)
		if got.Entity.Title != "Attention (beta)" || got.Entity.RelationshipCounts != (entities.RelationshipCounts{Incoming: 1}) {
			t.Errorf("beta's shared entity = %+v", got.Entity)
		}
		schemas.ok(t, c, "search_entities", map[string]any{"projectId": beta, "query": "news"}, &found)
		betaNews := found.Entities[0].ID
		wantCode(t, c, entities.CodeEntityNotFound, "get_entity", map[string]any{"projectId": alpha, "entityId": betaNews})
		wantCode(t, c, entities.CodeEntityNotFound, "get_entity_graph", map[string]any{"projectId": alpha, "entityId": betaNews})
		wantCode(t, c, entities.CodeProjectNotFound, "search_entities", map[string]any{"projectId": sharedEntityID, "query": "a"})
		wantCode(t, c, entities.CodeProjectNotFound, "get_entity", map[string]any{"projectId": "alpha", "entityId": sharedEntityID})
		wantCode(t, c, entities.CodeValidationError, "search_entities", map[string]any{"projectId": alpha, "query": "a", "offset": 1})
		wantCode(t, c, entities.CodeValidationError, "get_entity_graph", map[string]any{"projectId": alpha, "entityId": sharedEntityID, "depth": 3})
		wantCode(t, c, entities.CodeValidationError, "list_projects", map[string]any{"all": true})

		var g entities.GetEntityGraphOutput
		schemas.ok(t, c, "search_entities", map[string]any{"projectId": alpha, "query": "where to start"}, &found)
		schemas.ok(t, c, "get_entity_graph", map[string]any{"projectId": alpha, "entityId": found.Entities[0].ID}, &g)
		if len(g.Nodes) != 2 || len(g.Edges) != 1 || g.Edges[0].ToEntityID != sharedEntityID {
			t.Errorf("intro's graph = %+v; want intro and attention, one edge (the source is no entity)", g)
		}

		schemas.ok(t, c, "search_entities", map[string]any{"projectId": alpha, "query": "dense root"}, &found)
		args := map[string]any{"projectId": alpha, "entityId": found.Entities[0].ID, "depth": 2}
		first := schemas.ok(t, c, "get_entity_graph", args, &g)
		if len(g.Nodes) != entities.MaxGraphNodes || len(g.Edges) != entities.MaxGraphEdges {
			t.Errorf("dense graph: %d nodes, %d edges; want the caps %d and %d", len(g.Nodes), len(g.Edges), entities.MaxGraphNodes, entities.MaxGraphEdges)
		}
		if again := schemas.ok(t, c, "get_entity_graph", args, nil); again != first {
			t.Error("the same call answered differently")
		}
	})
}

// TestEntityAnswersAreTheSameOnBothStores serves one pair of vaults from
// the embedded store and from Neo4j at once and compares every answer
// byte for byte (list_projects aside: its dates are when each store first
// saw the projects).
func TestEntityAnswersAreTheSameOnBothStores(t *testing.T) {
	t.Parallel()
	neo := neo4jStore(t)
	cfg := entityVaults(t)
	embedded := entityClient(t, embeddedStore(t), cfg, false)
	onNeo4j := entityClient(t, neo, cfg, false)
	var projects entities.ListProjectsOutput
	callTool(t, embedded, "list_projects", map[string]any{}).decode(t, &projects)
	alpha := projects.Projects[0].ID

	var found entities.SearchEntitiesOutput
	callTool(t, embedded, "search_entities", map[string]any{"projectId": alpha, "query": "e", "limit": 50}).decode(t, &found)
	if len(found.Entities) != 50 {
		t.Fatalf("want 50 entities to compare, got %d", len(found.Entities))
	}
	calls := []struct {
		name string
		args map[string]any
	}{
		{"search_entities", map[string]any{"projectId": alpha, "query": "e", "limit": 50}},
		{"search_entities", map[string]any{"projectId": alpha, "query": "DENSE", "entityTypes": []string{"concept", "project"}}},
	}
	for _, e := range found.Entities[:20] {
		calls = append(calls,
			struct {
				name string
				args map[string]any
			}{"get_entity", map[string]any{"projectId": alpha, "entityId": e.ID}},
			struct {
				name string
				args map[string]any
			}{"get_entity_graph", map[string]any{"projectId": alpha, "entityId": e.ID, "depth": 2}},
		)
	}
	for _, call := range calls {
		a, b := callTool(t, embedded, call.name, call.args), callTool(t, onNeo4j, call.name, call.args)
		if a.isError || a.text != b.text {
			t.Errorf("%s %v differs between stores:\nembedded: %.400s\nneo4j:    %.400s", call.name, call.args, a.text, b.text)
		}
	}
}
