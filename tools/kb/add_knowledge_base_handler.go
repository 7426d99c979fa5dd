package kb

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	kbase "github.com/vaultgraph/vaultgraph/kb"
	"github.com/vaultgraph/vaultgraph/tools"
)

// AddKnowledgeBaseHandler answers add_knowledge_base with
// AddKnowledgeBaseResponse.
func AddKnowledgeBaseHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), AddKnowledgeBaseSpec(), func(ctx context.Context, in AddKnowledgeBaseInput) (any, error) {
		k, err := d.Bases.AddKnowledgeBase(ctx, kbase.NewKnowledgeBase{
			Name: in.Name, Description: in.Description, Subfolder: in.Subfolder, OrganizationRules: in.OrganizationRules,
		})
		if err != nil {
			return nil, err
		}
		return AddKnowledgeBaseResponse{KnowledgeBase: k, NextSteps: nextStepsAddKnowledgeBase}, nil
	})
}
