package kb

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// UpdateKnowledgeBaseName is update_knowledge_base's name.
const UpdateKnowledgeBaseName = "update_knowledge_base"

// UpdateKnowledgeBaseInput is update_knowledge_base's arguments; nil means
// "leave as is".
type UpdateKnowledgeBaseInput struct {
	Name              string  `json:"name"`
	Description       *string `json:"description"`
	Subfolder         *string `json:"subfolder"`
	OrganizationRules *string `json:"organization_rules"`
}

// UpdateKnowledgeBaseSpec is update_knowledge_base's contract (spec 002).
func UpdateKnowledgeBaseSpec() mcp.Tool {
	return mcp.NewTool(UpdateKnowledgeBaseName,
		mcp.WithDescription("Update metadata of an existing KB: only the fields given change, create_time stays. "+
			"A new subfolder must not overlap another KB; notes are not moved, and the answer's notes[] say what stayed behind (notes at the old place, constraints now outside the KB). "+
			"Errors: knowledge_base_not_found, subfolder_overlap, invalid_note_path."),
		mcp.WithString("name", mcp.Required(),
			mcp.Description("KB name to update")),
		mcp.WithString("description",
			mcp.Description("New description")),
		mcp.WithString("subfolder",
			mcp.Description("New subfolder path (vault-relative)")),
		mcp.WithString("organization_rules",
			mcp.Description("New organization rules (replace the old ones entirely)")),
		mcp.WithSchemaAdditionalProperties(false),
		// Fields are replaced; the same update twice leaves what the first did.
		tools.Annotations("Update a knowledge base", false, true, true),
	)
}
