package kb

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// ListKnowledgeBasesHandler answers list_knowledge_bases with
// ListKnowledgeBasesResponse.
func ListKnowledgeBasesHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), ListKnowledgeBasesSpec(), func(ctx context.Context, _ ListKnowledgeBasesInput) (any, error) {
		list, err := d.Bases.ListKnowledgeBases(ctx)
		if err != nil {
			return nil, err
		}
		return ListKnowledgeBasesResponse{KnowledgeBases: list}, nil
	})
}
