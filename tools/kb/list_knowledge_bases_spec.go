package kb

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// ListKnowledgeBasesName is list_knowledge_bases' name.
const ListKnowledgeBasesName = "list_knowledge_bases"

// ListKnowledgeBasesInput is list_knowledge_bases' arguments: none.
type ListKnowledgeBasesInput struct{}

// ListKnowledgeBasesSpec is list_knowledge_bases' contract (spec 002).
func ListKnowledgeBasesSpec() mcp.Tool {
	return mcp.NewTool(ListKnowledgeBasesName,
		mcp.WithDescription("List the knowledge bases (KBs): name, description, subfolder (the vault folder it manages), create_time and the first 200 characters of its organization rules. "+
			"Start here to find the knowledge_base_name the note tools need."),
		mcp.WithSchemaAdditionalProperties(false),
		tools.OutputSchema[ListKnowledgeBasesResponse](),
		tools.Annotations("List knowledge bases", true, false, true),
	)
}
