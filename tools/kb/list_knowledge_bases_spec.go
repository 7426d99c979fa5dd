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
		mcp.WithDescription("List the knowledge bases (KBs) with a 200-char preview of their organization rules. Start here: "+
			"the KB tools take a KB's name."),
		mcp.WithSchemaAdditionalProperties(false),
		tools.OutputSchema[ListKnowledgeBasesResponse](),
		tools.Annotations("List knowledge bases", true, false, true),
	)
}
