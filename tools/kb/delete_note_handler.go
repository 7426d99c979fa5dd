package kb

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
)

// DeleteNoteHandler answers delete_note with DeleteNoteResponse.
func DeleteNoteHandler(d Deps) server.ToolHandlerFunc {
	return handle(d, DeleteNoteSpec(), func(ctx context.Context, in DeleteNoteInput) (any, error) {
		k, deleted, err := d.Notes.DeleteNote(ctx, in.KnowledgeBaseName, in.NotePath)
		if err != nil {
			return nil, err
		}
		return DeleteNoteResponse{KnowledgeBase: refOf(k), DeletedPath: deleted}, nil
	})
}
