package kb

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// AddKnowledgeBaseName is add_knowledge_base's name.
const AddKnowledgeBaseName = "add_knowledge_base"

// AddKnowledgeBaseInput is add_knowledge_base's arguments.
type AddKnowledgeBaseInput struct {
	Name              string `json:"name"`
	Description       string `json:"description"`
	Subfolder         string `json:"subfolder"`
	OrganizationRules string `json:"organization_rules"`
}

// AddKnowledgeBaseSpec is add_knowledge_base's contract (spec 002).
func AddKnowledgeBaseSpec() mcp.Tool {
	return mcp.NewTool(AddKnowledgeBaseName,
		mcp.WithDescription("Create a knowledge base (KB): a named vault folder whose notes the KB tools manage and check. Name: "+
			"new, folder-safe; subfolder: not inside or around another KB's. Rules: add_knowledge_base_folder_constraint."),
		mcp.WithString("name", mcp.Required(),
			mcp.Description("Unique name")),
		mcp.WithString("description", mcp.Required(),
			mcp.Description("What the KB holds")),
		mcp.WithString("subfolder", mcp.Required(),
			mcp.Description("Folder from the vault root, e.g. 'research/ai'")),
		mcp.WithString("organization_rules", mcp.Required(),
			mcp.Description("How to organize notes (markdown); every note write returns it")),
		mcp.WithSchemaAdditionalProperties(false),
		// A repeat answers knowledge_base_already_exists: declared not
		// idempotent so clients do not retry blindly.
		tools.Annotations("Add a knowledge base", false, false, false),
	)
}
