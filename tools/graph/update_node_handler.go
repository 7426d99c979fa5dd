package graph

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// UpdateNodeHandler answers update_node with UpdateResponse: the updated
// node, plus "renamed" when the title change renamed the file.
func UpdateNodeHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), UpdateNodeSpec(), func(ctx context.Context, in UpdateNodeInput) (any, error) {
		res, err := d.Writer.Update(ctx, in.ID, core.NoteUpdate{Title: in.Title, Content: in.Content, Tags: in.Tags})
		switch {
		case errors.Is(err, core.ErrNotFound):
			return nil, &codeError{CodeNodeNotFound, fmt.Sprintf("no node has the ID %q", in.ID)}
		case errors.Is(err, core.ErrExists):
			return nil, &codeError{CodeNodeExists, "another node already has the file this title maps to; choose another title"}
		case err != nil:
			return nil, err
		}
		out := UpdateResponse{NodeResponse: nodeResponse(res.Node)}
		if r := res.Renamed; r != nil {
			out.Renamed = &RenameResponse{From: r.OldID, To: r.NewID, FilesChanged: r.FilesChanged, LinksChanged: r.LinksChanged, Relinked: relinkedResponse(r.Relinked)}
		}
		return out, nil
	})
}
