package graph

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// UpdateNodeName is update_node's name.
const UpdateNodeName = "update_node"

// UpdateNodeInput is update_node's arguments; nil means "leave as is".
type UpdateNodeInput struct {
	ID      string    `json:"id"`
	Title   *string   `json:"title"`
	Content *string   `json:"content"`
	Tags    *[]string `json:"tags"`
}

// UpdateNodeSpec is update_node's contract (spec 000).
func UpdateNodeSpec() mcp.Tool {
	return mcp.NewTool(UpdateNodeName,
		mcp.WithDescription("Change a note's title, content or tags (at least one). "+
			"A new title renames the file (new ID) and rewrites [[links]] to it (see renamed). "+
			"NODE_NOT_FOUND if no such note."),
		mcp.WithString("id", mcp.Required(),
			mcp.Description(idShort)),
		mcp.WithString("title",
			mcp.Description("New title; renames the file")),
		mcp.WithString("content",
			mcp.Description("New text, replaces all")),
		mcp.WithArray("tags",
			mcp.WithStringItems(),
			mcp.Description("New tags, replace all")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.OutputSchema[WrittenUpdate](),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			Title:        "Update a note",
			ReadOnlyHint: mcp.ToBoolPtr(false),
			// Content and tags are replaced entirely, and a rename
			// rewrites other notes.
			DestructiveHint: mcp.ToBoolPtr(true),
			// The same update twice leaves the vault as the first did.
			IdempotentHint: mcp.ToBoolPtr(true),
			OpenWorldHint:  mcp.ToBoolPtr(false),
		}),
	)
}
