package kb

import (
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
	kbase "github.com/vaultgraph/vaultgraph/kb"
)

// UpdateNoteHandler answers update_note with NoteChangeResponse.
func UpdateNoteHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), UpdateNoteSpec(), func(ctx context.Context, in UpdateNoteInput) (any, error) {
		res, err := d.Notes.UpdateNote(ctx, in.KnowledgeBaseName, in.NotePath, in.NoteContent, tools.Or(in.ExpectedVersion, ""))
		if err != nil {
			return nil, err
		}
		return changeResponse(res, instructionUpdate), nil
	})
}

func changeResponse(res *kbase.NoteChange, instruction string) NoteChangeResponse {
	return NoteChangeResponse{
		KnowledgeBase:               res.KB,
		OriginalNote:                noteResponse(res.Original),
		UpdatedNote:                 noteResponse(res.Updated),
		MachineValidation:           res.Validation,
		ValidationInstructionForLLM: instruction,
	}
}
