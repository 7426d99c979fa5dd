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
		mcp.WithDescription("Find the shortest chain of links from one note to another, following each link in its direction. "+
			"Returns {path, length}: the note IDs from source to target and the number of links; null when there is none or a note is missing."),
		mcp.WithString("source", mcp.Required(),
			mcp.Description(idHelp)),
		mcp.WithString("target", mcp.Required(),
			mcp.Description("ID of the note to reach")),
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
