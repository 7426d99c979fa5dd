package graph

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// FindPathHandler answers find_path with PathResponse or null.
func FindPathHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), FindPathSpec(), func(ctx context.Context, in FindPathInput) (any, error) {
		path, err := d.Reader.FindPath(ctx, in.Source, in.Target)
		if err != nil || len(path) == 0 {
			return nil, err
		}
		return PathResponse{Path: path, Length: len(path) - 1}, nil
	})
}
