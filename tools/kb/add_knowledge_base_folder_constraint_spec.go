package kb

import (
	"encoding/json"
	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/mcp"
)

// AddKnowledgeBaseFolderConstraintName is
// add_knowledge_base_folder_constraint's name.
const AddKnowledgeBaseFolderConstraintName = "add_knowledge_base_folder_constraint"

// AddKnowledgeBaseFolderConstraintInput is
// add_knowledge_base_folder_constraint's arguments. Rules are decoded by
// kbase.ParseRules, which names every problem.
type AddKnowledgeBaseFolderConstraintInput struct {
	KBName    string          `json:"kb_name"`
	Subfolder string          `json:"subfolder"`
	Rules     json.RawMessage `json:"rules"`
}

// rulesSchema is the spec's "Rules Schema" as JSON Schema.
func rulesSchema() map[string]any {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	length := func(desc string) map[string]any {
		return map[string]any{"type": "integer", "minimum": 0, "description": desc}
	}
	return map[string]any{
		"frontmatter": map[string]any{
			"type": "object", "additionalProperties": false,
			"description": "Frontmatter requirements",
			"properties": map[string]any{
				"required_fields": map[string]any{
					"type":        "array",
					"description": "Fields the frontmatter must have (null counts as missing)",
					"items": map[string]any{
						"type": "object", "additionalProperties": false,
						"required": []string{"name", "type"},
						"properties": map[string]any{
							"name": str("Field name"),
							"type": map[string]any{"type": "string", "enum": []string{"string", "number", "boolean", "date", "array"},
								"description": "string|number|boolean|date|array; a date is YYYY-MM-DD, optionally with a time"},
							"pattern": str("Optional: regex pattern (RE2 syntax, unanchored: use ^ and $) the value must match; for an array, every item"),
							"allowed_values": map[string]any{
								"type": "array", "items": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "number"}, map[string]any{"type": "boolean"}}},
								"description": "Optional: enumerated values; for an array, every item must be one of them",
							},
						},
					},
				},
			},
		},
		"filename": map[string]any{
			"type": "object", "additionalProperties": false,
			"description": "File name requirements",
			"properties":  map[string]any{"pattern": str("Regex pattern for valid filenames, matched against the name with its .md extension")},
		},
		"content": map[string]any{
			"type": "object", "additionalProperties": false,
			"description": "Body requirements (the note without its frontmatter)",
			"properties": map[string]any{
				"min_length": length("Optional: minimum characters"),
				"max_length": length("Optional: maximum characters"),
				"required_sections": map[string]any{
					"type": "array", "items": map[string]any{"type": "string"},
					"description": "Optional: required headings, matched at any level and in any letter case ('Summary' or '## Summary')",
				},
			},
		},
	}
}

// AddKnowledgeBaseFolderConstraintSpec is
// add_knowledge_base_folder_constraint's contract (spec 002).
func AddKnowledgeBaseFolderConstraintSpec() mcp.Tool {
	return mcp.NewTool(AddKnowledgeBaseFolderConstraintName,
		mcp.WithDescription("Set machine-checked rules (frontmatter fields, file name, sections, length) for the notes in one folder of a KB. "+
			"Every later create, update, append or move in that folder is refused with folder_constraint_violation when the note breaks them; the deepest folder with rules decides, so {} rules exempt a subfolder. "+
			"Replaces that folder's earlier rules."),
		mcp.WithString("kb_name", mcp.Required(),
			mcp.Description("Name of the KB")),
		mcp.WithString("subfolder", mcp.Required(),
			mcp.Description("Folder the rules apply to, from the vault's root: the KB's subfolder or a folder inside it")),
		mcp.WithObject("rules", mcp.Required(),
			mcp.Description("The rules"),
			mcp.Properties(rulesSchema()),
			mcp.AdditionalProperties(false)),
		mcp.WithSchemaAdditionalProperties(false),
		// It replaces the folder's rules; the same call twice leaves what
		// the first did.
		tools.Annotations("Add a folder constraint", false, true, true),
	)
}
