package kb

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	kbase "github.com/vaultgraph/vaultgraph/kb"
	"github.com/vaultgraph/vaultgraph/tools"
)

// AddKnowledgeBaseFolderConstraintHandler answers
// add_knowledge_base_folder_constraint with AddFolderConstraintResponse.
func AddKnowledgeBaseFolderConstraintHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), AddKnowledgeBaseFolderConstraintSpec(), func(ctx context.Context, in AddKnowledgeBaseFolderConstraintInput) (any, error) {
		rules, err := kbase.ParseRules(in.Rules)
		if err != nil {
			return nil, err
		}
		c, err := d.Bases.AddFolderConstraint(ctx, in.KBName, in.Subfolder, rules)
		if err != nil {
			return nil, err
		}
		return AddFolderConstraintResponse{FolderConstraint: c}, nil
	})
}
