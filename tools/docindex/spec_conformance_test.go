package docindex

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/tools"
)

// specParam is one parameter of a spec 004 input schema, copied from the
// spec (004_46e7ea7ee4f85763.txt); def is the spec's default, nil for none.
type specParam struct {
	name, typ string
	required  bool
	def       any
	desc      string // the spec's description, "" where it gives none
}

var specInputs = map[string][]specParam{
	"index_file": {
		{"file_path", "string", true, nil, "Absolute or relative path to the document"},
		{"namespace", "string", false, "default", "Namespace for organizing documents"},
	},
	"index_directory": {
		{"dir_path", "string", true, nil, "Directory path to scan for documents"},
		{"recursive", "boolean", false, true, "Scan subdirectories recursively"},
		{"namespace", "string", false, "default", "Namespace for organizing documents"},
	},
	"search": {
		{"query", "string", true, nil, "Natural language search query"},
		{"n_results", "integer", false, 5.0, "Maximum number of results to return"},
	},
	"search_with_filters": {
		{"query", "string", true, nil, "Natural language search query"},
		{"filters", "object", true, nil, "Metadata filters to apply"},
		{"n_results", "integer", false, 5.0, ""},
	},
	"search_with_budget": {
		{"query", "string", true, nil, "Search query"},
		{"max_tokens", "integer", true, 3000.0, "Maximum tokens in results"},
	},
	"delete_chunks":   {{"ids", "array", true, nil, "List of chunk IDs to delete"}},
	"delete_file":     {{"source_file", "string", true, nil, "Source file path to delete chunks for"}},
	"clear_index":     {{"confirm", "boolean", true, nil, "Safety gate - must be true to proceed"}},
	"get_index_stats": {},
}

// originalParams are parameters the original server of spec 004 took that
// the spec's text leaves out: accepted (docs/DECISIONS.md).
var originalParams = map[string][]string{
	"index_directory": {"async_mode"},
}

func TestSchemasMatchSpec004(t *testing.T) {
	require.Len(t, Specs(), len(specInputs))
	for _, spec := range Specs() {
		t.Run(spec.Name, func(t *testing.T) {
			want, ok := specInputs[spec.Name]
			require.True(t, ok, "a tool spec 004 does not name")
			raw, err := tools.InputSchemaJSON(spec)
			require.NoError(t, err)
			var schema struct {
				Properties map[string]map[string]any `json:"properties"`
				Required   []string                  `json:"required"`
			}
			require.NoError(t, json.Unmarshal(raw, &schema))
			assert.Len(t, schema.Properties, len(want)+len(originalParams[spec.Name]), "no parameter beyond the spec's and the original server's")
			for _, p := range originalParams[spec.Name] {
				assert.Contains(t, schema.Properties, p)
			}
			for _, p := range want {
				got, ok := schema.Properties[p.name]
				if !assert.True(t, ok, "parameter %s", p.name) {
					continue
				}
				assert.Equal(t, p.typ, got["type"], p.name)
				assert.Equal(t, p.required, slices.Contains(schema.Required, p.name), "%s required", p.name)
				assert.Equal(t, p.def, got["default"], "%s default", p.name)
				if p.desc != "" {
					assert.Equal(t, p.desc, got["description"], p.name)
				}
			}
		})
	}
}
