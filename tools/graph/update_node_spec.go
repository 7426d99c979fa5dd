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
		mcp.WithDescription("Update an existing node; give at least one of title, content, tags. A new title renames the file (the node ID changes) and rewrites the [[wikilinks]] of other notes that point to it; the answer then adds renamed: {from, to, filesChanged, linksChanged}. Fails with NODE_NOT_FOUND when the node does not exist."),
		mcp.WithString("id", mcp.Required(),
			mcp.Description("Node ID to update")),
		mcp.WithString("title",
			mcp.Description("New title (renames file for DocStore)")),
		mcp.WithString("content",
			mcp.Description("New content (replaces entirely)")),
		mcp.WithArray("tags",
			mcp.WithStringItems(),
			mcp.Description("New tags (replaces existing)")),
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
