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
		mcp.WithDescription("Create a new Knowledge Base managing the notes under a vault subfolder, and persist its metadata to .llm_bridges/knowledge_base/{name}/meta.md. "+
			"The name must be new and usable as a folder name; the subfolder may not overlap another KB's (one inside the other). "+
			"Errors: knowledge_base_already_exists, subfolder_overlap, invalid_note_path (subfolder with '..', absolute, hidden). "+
			"Next, define machine-checked rules with add_knowledge_base_folder_constraint."),
		mcp.WithString("name", mcp.Required(),
			mcp.Description("Unique KB identifier")),
		mcp.WithString("description", mcp.Required(),
			mcp.Description("Human-readable description")),
		mcp.WithString("subfolder", mcp.Required(),
			mcp.Description("Vault-relative root for this KB (e.g. 'research/ai')")),
		mcp.WithString("organization_rules", mcp.Required(),
			mcp.Description("Human-readable organization guidelines (Markdown); returned with every note write so they can be checked")),
		mcp.WithSchemaAdditionalProperties(false),
		// A repeat answers knowledge_base_already_exists: declared not
		// idempotent so clients do not retry blindly.
		tools.Annotations("Add a knowledge base", false, false, false),
	)
}
