package kb

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// CreateNoteHandler answers create_note with CreateNoteResponse.
func CreateNoteHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), CreateNoteSpec(), func(ctx context.Context, in CreateNoteInput) (any, error) {
		res, err := d.Notes.CreateNote(ctx, in.KnowledgeBaseName, in.NotePath, in.NoteContent)
		if err != nil {
			return nil, err
		}
		return CreateNoteResponse{
			KnowledgeBase:               res.KB,
			Note:                        noteResponse(res.Note),
			MachineValidation:           res.Validation,
			ValidationInstructionForLLM: instructionCreate,
		}, nil
	})
}
