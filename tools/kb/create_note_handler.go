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
		out := CreateNoteResponse{
			KnowledgeBase:               res.KB,
			Note:                        noteResponse(res.Note),
			MachineValidation:           res.Validation,
			ValidationInstructionForLLM: instructionCreate,
		}
		for _, r := range res.Relinked {
			out.Relinked = append(out.Relinked, RelinkedNote{Path: r.Path, Links: r.Links})
		}
		return out, nil
	})
}
