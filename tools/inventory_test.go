package tools_test

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
	"github.com/vaultgraph/vaultgraph/tools/catalog"
)

// inventory is every tool of every toolset, with every optional tool
// switched on: the catalog with an embedding provider (what docs/TOOLS.md
// and `vaultgraph tools` list). A new toolset adds its tools there.
func inventory(t *testing.T) []tools.Tool {
	t.Helper()
	return catalog.Tools(catalog.Options{Embeddings: true})
}

func TestInventoryToolsAreWellFormed(t *testing.T) {
	all := inventory(t)
	if len(all) == 0 {
		t.Fatal("empty inventory")
	}
	for _, tool := range all {
		t.Run(tool.Tool.Name, func(t *testing.T) {
			if !tools.KnownToolset(tool.Toolset) {
				t.Errorf("unknown toolset %q", tool.Toolset)
			}
			if tool.Handler == nil || tool.Tool.Description == "" {
				t.Error("a tool needs a handler and a description")
			}
			checkAnnotations(t, tool.Tool)
			checkInputSchema(t, tool.Tool)
			checkOutputSchema(t, tool.Tool)
		})
	}
}

// checkAnnotations: every hint written out (an unset bool silently means
// something to clients), and the hints consistent with each other.
func checkAnnotations(t *testing.T, tool mcp.Tool) {
	t.Helper()
	a := tool.Annotations
	if a.Title == "" {
		t.Error("annotation title is not set")
	}
	hints := map[string]*bool{"readOnlyHint": a.ReadOnlyHint, "destructiveHint": a.DestructiveHint, "idempotentHint": a.IdempotentHint, "openWorldHint": a.OpenWorldHint}
	for name, h := range hints {
		if h == nil {
			t.Errorf("%s is not set explicitly", name)
		}
	}
	if t.Failed() {
		return
	}
	if *a.ReadOnlyHint && (*a.DestructiveHint || !*a.IdempotentHint) {
		t.Error("a read-only tool cannot be destructive and is idempotent")
	}
	// vaultgraph's tools reach the vault and its index only.
	if *a.OpenWorldHint {
		t.Error("openWorldHint must be false")
	}
}

// checkInputSchema: the published schema compiles, is a plain object
// schema (clients mishandle top-level combinators), and documents every
// property.
func checkInputSchema(t *testing.T, tool mcp.Tool) {
	t.Helper()
	raw, err := tools.InputSchemaJSON(tool)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tools.CompileSchema(tool.Name, raw); err != nil {
		t.Fatalf("schema does not compile: %v", err)
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
		AnyOf      any                        `json:"anyOf"`
		OneOf      any                        `json:"oneOf"`
		AllOf      any                        `json:"allOf"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" {
		t.Errorf("schema type %q, want object", schema.Type)
	}
	if schema.AnyOf != nil || schema.OneOf != nil || schema.AllOf != nil {
		t.Error("top-level anyOf/oneOf/allOf")
	}
	for _, r := range schema.Required {
		if _, ok := schema.Properties[r]; !ok {
			t.Errorf("required %q is not a property", r)
		}
	}
	for name, p := range schema.Properties {
		var prop struct {
			Description string `json:"description"`
		}
		if json.Unmarshal(p, &prop) != nil || prop.Description == "" {
			t.Errorf("property %q has no description", name)
		}
	}
}

// checkOutputSchema: an outputSchema, when published, compiles and
// describes an object (structuredContent is one).
func checkOutputSchema(t *testing.T, tool mcp.Tool) {
	t.Helper()
	raw := tools.OutputSchemaJSON(tool)
	if raw == nil {
		return
	}
	if _, err := tools.CompileSchema(tool.Name, raw); err != nil {
		t.Fatalf("output schema does not compile: %v", err)
	}
	var schema struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil || schema.Type != "object" {
		t.Errorf("output schema type %q, want object (%v)", schema.Type, err)
	}
}

func TestInventoryNamesAreUniqueWithEveryToolsetEnabled(t *testing.T) {
	all := inventory(t)
	var ids []string
	for _, ts := range tools.Toolsets {
		ids = append(ids, ts.ID)
	}
	picked, err := tools.Select(all, tools.Selection{Toolsets: ids})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, tool := range picked {
		if seen[tool.Tool.Name] {
			t.Errorf("duplicate tool name %q", tool.Tool.Name)
		}
		seen[tool.Tool.Name] = true
	}
	ro, err := tools.Select(all, tools.Selection{Toolsets: ids, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range ro {
		if !tool.ReadOnly() {
			t.Errorf("read-only selection holds %s", tool.Tool.Name)
		}
	}
	if len(ro) == 0 || len(ro) == len(picked) {
		t.Errorf("read-only selection kept %d of %d tools", len(ro), len(picked))
	}
}

// Issue 26: every tool served has a top-level title. Issue 47: the
// published annotations do not repeat it nor a hint MCP's defaults give,
// and read with those defaults they say what the tool declares.
func TestServedToolsHaveATitle(t *testing.T) {
	def := func(h *bool, v bool) bool {
		if h == nil {
			return v
		}
		return *h
	}
	all := inventory(t)
	for i, st := range tools.ServerTools(all) {
		declared, published := all[i].Tool.Annotations, st.Tool.Annotations
		if st.Tool.Title == "" || published.Title != "" {
			t.Errorf("%s: title %q, annotations' title %q", st.Tool.Name, st.Tool.Title, published.Title)
		}
		if published.OpenWorldHint == nil || *published.OpenWorldHint {
			t.Errorf("%s: openWorldHint must be published false", st.Tool.Name)
		}
		ro := def(published.ReadOnlyHint, false)
		if ro != *declared.ReadOnlyHint {
			t.Errorf("%s: published readOnlyHint reads %v", st.Tool.Name, ro)
		}
		if ro {
			if published.DestructiveHint != nil || published.IdempotentHint != nil {
				t.Errorf("%s: a read-only tool publishes destructiveHint or idempotentHint", st.Tool.Name)
			}
			continue
		}
		if def(published.DestructiveHint, true) != *declared.DestructiveHint || def(published.IdempotentHint, false) != *declared.IdempotentHint {
			t.Errorf("%s: published hints %+v read differently from the declared %+v", st.Tool.Name, published, declared)
		}
	}
}
