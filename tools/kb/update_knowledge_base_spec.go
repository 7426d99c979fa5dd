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
		mcp.WithDescription("Change a KB's description, subfolder or organization rules (others stay). "+
			"A new subfolder may not overlap another KB's; notes are not moved (see notes[])."),
		mcp.WithString("name", mcp.Required(),
			mcp.Description("KB name")),
		mcp.WithString("description",
			mcp.Description("New description")),
		mcp.WithString("subfolder",
			mcp.Description("New subfolder, from the vault root")),
		mcp.WithString("organization_rules",
			mcp.Description("New organization rules, replace the old")),
		mcp.WithSchemaAdditionalProperties(false),
		// Fields are replaced; the same update twice leaves what the first did.
		tools.Annotations("Update a knowledge base", false, true, true),
	)
}
