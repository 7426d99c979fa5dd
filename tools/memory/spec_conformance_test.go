package memory_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/vaultgraph/vaultgraph/tools"
	memtools "github.com/vaultgraph/vaultgraph/tools/memory"
)

// specParam is one property of a spec 004 input schema, copied verbatim
// (default nil: none given).
type specParam struct {
	name, typ string
	required  bool
	def       any
	desc      string
	enum      []any
}

// specInputs are the input schemas spec 004 gives (memory tools).
var specInputs = map[string][]specParam{
	"memory_store": {
		{"content", "string", true, nil, "The memory content text", nil},
		{"memory_type", "string", false, "session", "Type of memory", []any{"preference", "decision", "pattern", "session", "fact"}},
		{"namespace", "string", false, "global", "Scope of the memory", nil},
		{"importance", "number", false, 0.5, "Importance score 0.0-1.0", nil},
		{"metadata", "object", false, nil, "Optional additional metadata", nil},
	},
	"memory_recall": {
		{"query", "string", true, nil, "Search query text", nil},
		{"n_results", "integer", false, 5.0, "Maximum number of results", nil},
		{"namespace", "string", false, nil, "Filter by namespace", nil},
		{"memory_type", "string", false, nil, "Filter by memory type", nil},
		{"min_importance", "number", false, nil, "Minimum importance score filter", nil},
		{"min_confidence", "number", false, nil, "Minimum confidence score filter", nil},
	},
	"memory_validate": {
		{"memory_id", "string", true, nil, "ID of the memory to validate", nil},
		{"was_helpful", "boolean", true, nil, "Whether the memory was helpful", nil},
		{"context", "string", false, nil, "Optional context describing the usage", nil},
	},
	"memory_forget": {
		{"memory_id", "string", false, nil, "Specific memory ID to delete", nil},
		{"query", "string", false, nil, "Search query to find memories to delete", nil},
		{"input_value", "string", false, nil, "Smart parameter - auto-detects if ID or query", nil},
		{"namespace", "string", false, nil, "Filter deletion to specific namespace", nil},
		{"n_results", "integer", false, 5.0, "Number of search results to delete in query mode", nil},
		{"force", "boolean", false, false, "If true, allow deletion of golden rules", nil},
	},
	"memory_context": {
		{"query", "string", false, nil, "Optional search query to filter relevant memories", nil},
		{"namespace", "string", false, nil, "Project namespace", nil},
		{"token_budget", "integer", false, 4000.0, "Maximum tokens for context", nil},
	},
}

// extraParams are the parameters a detailed tool publishes beyond spec
// 004's text, each documented in docs/MEMORY.md and docs/DECISIONS.md.
var extraParams = map[string][]string{
	"memory_forget": {"dry_run"}, // issue 25: see what a query would delete
	// The original server's (Theo's memory_recall took them; spec 004's
	// text leaves them out): graph expansion of the recalled memories.
	"memory_recall": {"include_related", "max_depth"},
}

type publishedSchema struct {
	Properties map[string]struct {
		Type        string `json:"type"`
		Default     any    `json:"default"`
		Description string `json:"description"`
		Enum        []any  `json:"enum"`
	} `json:"properties"`
	Required []string `json:"required"`
}

// The tools the spec details publish exactly its parameters: names,
// types, required ones, defaults, enums and descriptions.
func TestSpecDetailedToolsMatchTheSpec(t *testing.T) {
	specs := map[string]bool{}
	for _, tool := range memtools.Specs() {
		want, ok := specInputs[tool.Name]
		if !ok {
			continue
		}
		specs[tool.Name] = true
		t.Run(tool.Name, func(t *testing.T) {
			raw, err := tools.InputSchemaJSON(tool)
			if err != nil {
				t.Fatal(err)
			}
			var got publishedSchema
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if len(got.Properties) != len(want)+len(extraParams[tool.Name]) {
				t.Errorf("%d properties, spec has %d and vaultgraph adds %v", len(got.Properties), len(want), extraParams[tool.Name])
			}
			for _, extra := range extraParams[tool.Name] {
				if _, ok := got.Properties[extra]; !ok {
					t.Errorf("missing the documented addition %s", extra)
				}
			}
			var required []string
			for _, p := range want {
				g, ok := got.Properties[p.name]
				if !ok {
					t.Errorf("missing %s", p.name)
					continue
				}
				if g.Type != p.typ || g.Description != p.desc || !reflect.DeepEqual(g.Default, p.def) || !reflect.DeepEqual(g.Enum, p.enum) {
					t.Errorf("%s: published %+v, spec %+v", p.name, g, p)
				}
				if p.required {
					required = append(required, p.name)
				}
			}
			slices.Sort(required)
			slices.Sort(got.Required)
			if !slices.Equal(required, got.Required) {
				t.Errorf("required %v, spec %v", got.Required, required)
			}
		})
	}
	if len(specs) != len(specInputs) {
		t.Errorf("checked %d tools, want %d", len(specs), len(specInputs))
	}
}
