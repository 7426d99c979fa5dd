package kb

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
)

// MoveNoteHandler answers move_note with MoveNoteResponse.
func MoveNoteHandler(d Deps) server.ToolHandlerFunc {
	return handle(d, MoveNoteSpec(), func(ctx context.Context, in MoveNoteInput) (any, error) {
		m, err := d.Notes.MoveNote(ctx, in.KnowledgeBaseName, in.OriginNotePath, in.NewNotePath)
		if err != nil {
			return nil, err
		}
		return MoveNoteResponse{
			KnowledgeBase:               m.KB,
			OriginPath:                  m.From,
			NewPath:                     m.To,
			MachineValidation:           m.Validation,
			ValidationInstructionForLLM: instructionMove,
			LinksUpdated:                LinksUpdated{FilesChanged: m.FilesChanged, LinksChanged: m.LinksChanged},
		}, nil
	})
}
