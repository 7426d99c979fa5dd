package kb

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	kbase "github.com/vaultgraph/vaultgraph/kb"
	"github.com/vaultgraph/vaultgraph/tools"
)

// ListNotesHandler answers list_notes with ListNotesResponse.
func ListNotesHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), ListNotesSpec(), func(ctx context.Context, in ListNotesInput) (any, error) {
		l, err := d.Notes.ListNotes(ctx, in.KnowledgeBaseName, tools.Or(in.Subfolder, ""), tools.IntOr(in.Offset, 0), tools.IntOr(in.Limit, kbase.DefaultListLimit))
		if err != nil {
			return nil, err
		}
		out := ListNotesResponse{KnowledgeBase: refOf(l.KB), Notes: make([]NotePath, len(l.Paths)),
			Offset: l.Offset, NextOffset: l.NextOffset, HasMore: l.HasMore, RemainingNotes: l.Remaining, TotalNotes: l.Total}
		for i, p := range l.Paths {
			out.Notes[i] = NotePath{Path: p}
		}
		return out, nil
	})
}
