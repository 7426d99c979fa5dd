package kb

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// AppendNoteHandler answers append_note with NoteChangeResponse.
func AppendNoteHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), AppendNoteSpec(), func(ctx context.Context, in AppendNoteInput) (any, error) {
		res, err := d.Notes.AppendNote(ctx, in.KnowledgeBaseName, in.NotePath, in.NoteContent)
		if err != nil {
			return nil, err
		}
		return changeResponse(res, instructionAppend), nil
	})
}
