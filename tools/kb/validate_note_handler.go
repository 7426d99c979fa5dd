package kb

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// ValidateNoteHandler answers validate_note with ValidateNoteResponse.
func ValidateNoteHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), ValidateNoteSpec(), func(ctx context.Context, in ValidateNoteInput) (any, error) {
		res, err := d.Notes.ValidateNote(ctx, in.KnowledgeBaseName, in.NotePath)
		if err != nil {
			return nil, err
		}
		instruction := instructionValidatePassed
		if !res.Validation.Passed {
			instruction = instructionValidateFailed
		}
		return ValidateNoteResponse{
			KnowledgeBase:               res.KB,
			Note:                        noteResponse(res.Note),
			MachineValidation:           res.Validation,
			ValidationInstructionForLLM: instruction,
		}, nil
	})
}
