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
		mcp.WithDescription("Change a note; give at least one of title, content, tags. "+
			"A new title renames the file (the ID changes) and rewrites the [[links]] to it in other notes; the answer then adds renamed: {from, to, filesChanged, linksChanged, relinked}. "+
			"NODE_NOT_FOUND when there is no such note."),
		mcp.WithString("id", mcp.Required(),
			mcp.Description(idHelp)),
		mcp.WithString("title",
			mcp.Description("New title; renames the file")),
		mcp.WithString("content",
			mcp.Description("New text (replaces all of it)")),
		mcp.WithArray("tags",
			mcp.WithStringItems(),
			mcp.Description("New tags (replace the old ones)")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.OutputSchema[UpdateResponse](),
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
