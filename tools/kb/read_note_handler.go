package kb

import (
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
	kbase "github.com/vaultgraph/vaultgraph/kb"
)

// ReadNoteHandler answers read_note with ReadNoteResponse.
func ReadNoteHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), ReadNoteSpec(), func(ctx context.Context, in ReadNoteInput) (any, error) {
		p, err := d.Notes.ReadNote(ctx, in.KnowledgeBaseName, in.NotePath, tools.IntOr(in.Offset, 0), tools.IntOr(in.Limit, kbase.DefaultReadLimit))
		if err != nil {
			return nil, err
		}
		return ReadNoteResponse{KnowledgeBase: p.KB, Note: NotePageResponse{
			Path: p.Path, Content: p.Content, Offset: p.Offset, NextOffset: p.NextOffset,
			HasMore: p.HasMore, RemainingChars: p.RemainingChars, Version: p.Version,
		}}, nil
	})
}
