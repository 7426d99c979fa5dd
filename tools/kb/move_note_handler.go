package kb

import (
	"context"

	"github.com/mark3labs/mcp-go/server"

	kbase "github.com/vaultgraph/vaultgraph/kb"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MoveNoteHandler answers move_note with MoveNoteResponse.
func MoveNoteHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), MoveNoteSpec(), func(ctx context.Context, in MoveNoteInput) (any, error) {
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
			LinksUpdated:                linksUpdated(m),
		}, nil
	})
}

// linksUpdated is move_note's links_updated for a move.
func linksUpdated(m *kbase.NoteMove) LinksUpdated {
	out := LinksUpdated{FilesChanged: m.FilesChanged, LinksChanged: m.LinksChanged, Relinked: make([]RelinkedNote, 0, len(m.Relinked))}
	for _, r := range m.Relinked {
		out.Relinked = append(out.Relinked, RelinkedNote{Path: r.Path, Links: r.Links})
	}
	return out
}
