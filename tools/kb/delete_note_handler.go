package kb

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// DeleteNoteHandler answers delete_note with DeleteNoteResponse.
func DeleteNoteHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), DeleteNoteSpec(), func(ctx context.Context, in DeleteNoteInput) (any, error) {
		k, deleted, err := d.Notes.DeleteNote(ctx, in.KnowledgeBaseName, in.NotePath)
		if err != nil {
			return nil, err
		}
		return DeleteNoteResponse{KnowledgeBase: refOf(k), DeletedPath: deleted}, nil
	})
}
