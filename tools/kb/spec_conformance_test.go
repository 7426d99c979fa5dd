package kb

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/vaultgraph/vaultgraph/tools/toolsnaps"
)

// specParam is one row of a spec 002 input table.
type specParam struct {
	name, typ string
	required  bool
	desc      string // the spec's description; ours says it without the spec's shorthand (issue 26)
}

// specInputs are the input tables of spec 002 (002_30b7110888f79f73.txt),
// copied verbatim.
var specInputs = map[string][]specParam{
	"list_knowledge_bases": {},
	"add_knowledge_base": {
		{"name", "string", true, "Unique KB identifier"},
		{"description", "string", true, "Human-readable description"},
		{"subfolder", "string", true, "Vault-relative root for this KB"},
		{"organization_rules", "string", true, "Human-readable organization guidelines"},
	},
	"update_knowledge_base": {
		{"name", "string", true, "KB name to update"},
		{"description", "string", false, "New description"},
		{"subfolder", "string", false, "New subfolder path"},
		{"organization_rules", "string", false, "New organization rules"},
	},
	"add_knowledge_base_folder_constraint": {
		{"kb_name", "string", true, "Name of the KB"},
		{"subfolder", "string", true, "Target folder path (vault-relative)"},
		{"rules", "object", true, "Structured metadata requirements"},
	},
	"create_note": {
		{"knowledge_base_name", "string", true, "KB to create note in"},
		{"note_path", "string", true, "Path for the note (relative to KB subfolder)"},
		{"note_content", "string", true, "Full Markdown content"},
	},
	"update_note": {
		{"knowledge_base_name", "string", true, "KB containing the note"},
		{"note_path", "string", true, "Path to the note"},
		{"note_content", "string", true, "New full Markdown content"},
		{"expected_version", "string", false, "Optional: for concurrent-safe updates"},
	},
	"append_note": {
		{"knowledge_base_name", "string", true, "KB containing the note"},
		{"note_path", "string", true, "Path to the note"},
		{"note_content", "string", true, "Content to append"},
	},
	"move_note": {
		{"knowledge_base_name", "string", true, "KB containing the note"},
		{"origin_note_path", "string", true, "Current path"},
		{"new_note_path", "string", true, "Destination path"},
	},
	"delete_note": {
		{"knowledge_base_name", "string", true, "KB containing the note"},
		{"note_path", "string", true, "Path to the note"},
	},
	"read_note": {
		{"knowledge_base_name", "string", true, "KB containing the note"},
		{"note_path", "string", true, "Path to the note"},
		{"offset", "integer", false, "Character offset to start reading"},
		{"limit", "integer", false, "Maximum characters to return"},
	},
	"list_notes": {
		{"knowledge_base_name", "string", true, "KB to list notes from"},
		{"subfolder", "string", false, "Optional: filter to specific subfolder"},
	},
	"validate_note": {
		{"knowledge_base_name", "string", true, "KB containing the note"},
		{"note_path", "string", true, "Path to the note"},
	},
}

// extensions are the parameters vaultgraph adds to spec 002's, each
// optional and documented in docs/DECISIONS.md: list_notes pages as
// read_note does, since a knowledge base over a large vault listed whole
// is hundreds of kilobytes.
var extensions = map[string][]specParam{
	"list_notes": {
		{"offset", "integer", false, "Number of notes (in path order) to skip"},
		{"limit", "integer", false, "Maximum notes to return"},
	},
}

// specDefaults are the defaults spec 002 gives.
var specDefaults = map[string]map[string]float64{"read_note": {"offset": 0, "limit": 10000}}

// specReadOnly: the tools that only read (list, read, validate).
var specReadOnly = map[string]bool{"list_knowledge_bases": true, "read_note": true, "list_notes": true, "validate_note": true}

// TestSnapshotsMatchSpec checks the reviewed snapshots, not the code, so a
// snapshot updated carelessly still cannot drift from the spec.
func TestSnapshotsMatchSpec(t *testing.T) {
	if len(Specs()) != len(specInputs) {
		t.Fatalf("toolset has %d tools, spec 002 has %d", len(Specs()), len(specInputs))
	}
	for name, params := range specInputs {
		params = append(slices.Clone(params), extensions[name]...)
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(toolsnaps.Path(name))
			if err != nil {
				t.Fatalf("snapshot: %v", err)
			}
			var snap toolsnaps.Snapshot
			if err := json.Unmarshal(raw, &snap); err != nil {
				t.Fatal(err)
			}
			var schema struct {
				Properties map[string]struct {
					Type        string   `json:"type"`
					Description string   `json:"description"`
					Default     *float64 `json:"default"`
				} `json:"properties"`
				Required             []string `json:"required"`
				AdditionalProperties *bool    `json:"additionalProperties"`
			}
			if err := json.Unmarshal(snap.InputSchema, &schema); err != nil {
				t.Fatal(err)
			}
			if snap.Name != name || len(schema.Properties) != len(params) {
				t.Fatalf("snapshot %q has %d parameters, spec %d", snap.Name, len(schema.Properties), len(params))
			}
			var required []string
			for _, p := range params {
				got, ok := schema.Properties[p.name]
				if !ok {
					t.Errorf("parameter %s is missing", p.name)
					continue
				}
				if got.Type != p.typ || got.Description == "" {
					t.Errorf("%s: type %q description %q; spec: %s %q", p.name, got.Type, got.Description, p.typ, p.desc)
				}
				if def, ok := specDefaults[name][p.name]; ok && (got.Default == nil || *got.Default != def) {
					t.Errorf("%s: default %v, spec %v", p.name, got.Default, def)
				}
				if p.required {
					required = append(required, p.name)
				}
			}
			slices.Sort(required)
			slices.Sort(schema.Required)
			if !slices.Equal(required, schema.Required) {
				t.Errorf("required %v, spec %v", schema.Required, required)
			}
			if schema.AdditionalProperties == nil || *schema.AdditionalProperties {
				t.Error("unknown arguments must be refused (kb_name vs knowledge_base_name is an easy slip)")
			}
			if ro := snap.Annotations.ReadOnlyHint; ro == nil || *ro != specReadOnly[name] {
				t.Errorf("readOnlyHint = %v, want %v", ro, specReadOnly[name])
			}
		})
	}
}

func TestToolsAreTheSpecsInOrder(t *testing.T) {
	var specs, built []string
	for _, s := range Specs() {
		specs = append(specs, s.Name)
	}
	for _, tool := range Tools(Deps{}) {
		built = append(built, tool.Tool.Name)
		if tool.Toolset != "kb" || tool.Handler == nil {
			t.Errorf("%s: toolset %q", tool.Tool.Name, tool.Toolset)
		}
	}
	if !slices.Equal(specs, built) {
		t.Fatalf("Tools %v, Specs %v", built, specs)
	}
}
