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
		mcp.WithDescription("Shortest chain of links from source to target, each link followed in its direction: {path: note IDs, length}. "+
			"null if none or a note is missing."),
		mcp.WithString("source", mcp.Required(),
			mcp.Description(idShort)),
		mcp.WithString("target", mcp.Required(),
			mcp.Description("Note ID to reach")),
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
