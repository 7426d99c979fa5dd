package kb

import (
	"context"
	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
)

// ListNotesHandler answers list_notes with ListNotesResponse.
func ListNotesHandler(d Deps) server.ToolHandlerFunc {
	return handle(d, ListNotesSpec(), func(ctx context.Context, in ListNotesInput) (any, error) {
		k, paths, err := d.Notes.ListNotes(ctx, in.KnowledgeBaseName, tools.Or(in.Subfolder, ""))
		if err != nil {
			return nil, err
		}
		out := ListNotesResponse{KnowledgeBase: refOf(k), Notes: make([]NotePath, len(paths))}
		for i, p := range paths {
			out.Notes[i] = NotePath{Path: p}
		}
		return out, nil
	})
}
