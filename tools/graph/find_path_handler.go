package graph

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
)

// FindPathHandler answers find_path with PathResponse or null.
func FindPathHandler(d Deps) server.ToolHandlerFunc {
	return handle(d, FindPathSpec(), func(ctx context.Context, in FindPathInput) (any, error) {
		path, err := d.Reader.FindPath(ctx, in.Source, in.Target)
		if err != nil || len(path) == 0 {
			return nil, err
		}
		return PathResponse{Path: path, Length: len(path) - 1}, nil
	})
}
