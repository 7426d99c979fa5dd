package kb

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
)

// ListKnowledgeBasesHandler answers list_knowledge_bases with
// ListKnowledgeBasesResponse.
func ListKnowledgeBasesHandler(d Deps) server.ToolHandlerFunc {
	return handle(d, ListKnowledgeBasesSpec(), func(ctx context.Context, _ ListKnowledgeBasesInput) (any, error) {
		list, err := d.Bases.ListKnowledgeBases(ctx)
		if err != nil {
			return nil, err
		}
		return ListKnowledgeBasesResponse{KnowledgeBases: list}, nil
	})
}
