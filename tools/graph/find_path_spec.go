package graph

import "github.com/mark3labs/mcp-go/mcp"

// FindPathName is find_path's name.
const FindPathName = "find_path"

// FindPathInput is find_path's arguments.
type FindPathInput struct {
	Source string `json:"source"`
	Target string `json:"target"`
}

// FindPathSpec is find_path's contract (spec 000).
func FindPathSpec() mcp.Tool {
	return mcp.NewTool(FindPathName,
		mcp.WithDescription("Find shortest path between two nodes, following links in their direction (source links to ..., which links to target). Returns {path, length} with length = number of links, or null when no path exists or a node is missing."),
		mcp.WithString("source", mcp.Required(),
			mcp.Description("Start node ID")),
		mcp.WithString("target", mcp.Required(),
			mcp.Description("End node ID")),
		mcp.WithSchemaAdditionalProperties(false),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			Title:           "Find a path between notes",
			ReadOnlyHint:    mcp.ToBoolPtr(true),
			DestructiveHint: mcp.ToBoolPtr(false),
			IdempotentHint:  mcp.ToBoolPtr(true),
			OpenWorldHint:   mcp.ToBoolPtr(false),
		}),
	)
}
