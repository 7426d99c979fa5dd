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
					"description": "Fields it must have (null counts as missing)",
					"items": map[string]any{
						"type": "object", "additionalProperties": false,
						"required": []string{"name", "type"},
						"properties": map[string]any{
							"name": str("Field name"),
							"type": map[string]any{"type": "string", "enum": []string{"string", "number", "boolean", "date", "array"},
								"description": "A date is YYYY-MM-DD, optionally with a time"},
							"pattern": str("RE2 regex the value must match (unanchored: use ^ and $); for an array, each item"),
							"allowed_values": map[string]any{
								"type": "array", "items": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "number"}, map[string]any{"type": "boolean"}}},
								"description": "Allowed values; for an array, each item",
							},
						},
					},
				},
			},
		},
		"filename": map[string]any{
			"type": "object", "additionalProperties": false,
			"description": "File name requirements",
			"properties":  map[string]any{"pattern": str("Regex the file name, with .md, must match")},
		},
		"content": map[string]any{
			"type": "object", "additionalProperties": false,
			"description": "Body requirements (without frontmatter)",
			"properties": map[string]any{
				"min_length": length("Minimum characters"),
				"max_length": length("Maximum characters"),
				"required_sections": map[string]any{
					"type": "array", "items": map[string]any{"type": "string"},
					"description": "Headings it must have, any level and case ('Summary' or '## Summary')",
				},
			},
		},
	}
}

// AddKnowledgeBaseFolderConstraintSpec is
// add_knowledge_base_folder_constraint's contract (spec 002).
func AddKnowledgeBaseFolderConstraintSpec() mcp.Tool {
	return mcp.NewTool(AddKnowledgeBaseFolderConstraintName,
		mcp.WithDescription("Set the rules (frontmatter, file name, sections, length) of one KB folder's notes, replacing earlier ones; "+
			"writes there that break them fail (folder_constraint_violation). The deepest folder with rules decides: "+
			"{} exempts a subfolder."),
		mcp.WithString("kb_name", mcp.Required(),
			mcp.Description("KB name")),
		mcp.WithString("subfolder", mcp.Required(),
			mcp.Description("Folder from the vault root: the KB's subfolder or one inside it")),
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
