package kb

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	kbase "github.com/vaultgraph/vaultgraph/kb"
	"github.com/vaultgraph/vaultgraph/tools"
)

// UpdateKnowledgeBaseHandler answers update_knowledge_base with
// UpdateKnowledgeBaseResponse.
func UpdateKnowledgeBaseHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), UpdateKnowledgeBaseSpec(), func(ctx context.Context, in UpdateKnowledgeBaseInput) (any, error) {
		k, notes, err := d.Bases.UpdateKnowledgeBase(ctx, in.Name, kbase.KnowledgeBaseUpdate{
			Description: in.Description, Subfolder: in.Subfolder, OrganizationRules: in.OrganizationRules,
		})
		if err != nil {
			return nil, err
		}
		out := UpdateKnowledgeBaseResponse{KnowledgeBase: k, Notes: []NoteMessage{}}
		for _, n := range notes {
			out.Notes = append(out.Notes, NoteMessage{Message: n})
		}
		return out, nil
	})
}
