package graph

import "github.com/mark3labs/mcp-go/mcp"

// RandomNodeName is random_node's name.
const RandomNodeName = "random_node"

// RandomNodeInput is random_node's arguments.
type RandomNodeInput struct {
	Tags []string `json:"tags"`
}

// RandomNodeSpec is random_node's contract (spec 000).
func RandomNodeSpec() mcp.Tool {
	return mcp.NewTool(RandomNodeName,
		mcp.WithDescription("A random note, for discovery (content up to 10,000 chars); a tag includes nested ones (go: #go/lang). "+
			"null if none."),
		mcp.WithArray("tags",
			mcp.WithStringItems(),
			mcp.Description("Pick among notes with any of these tags")),
		mcp.WithSchemaAdditionalProperties(false),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			Title:           "Get a random note",
			ReadOnlyHint:    mcp.ToBoolPtr(true),
			DestructiveHint: mcp.ToBoolPtr(false),
			IdempotentHint:  mcp.ToBoolPtr(true),
			OpenWorldHint:   mcp.ToBoolPtr(false),
		}),
	)
}
