package graph

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// DeleteNodeName is delete_node's name.
const DeleteNodeName = "delete_node"

// DeleteNodeInput is delete_node's arguments.
type DeleteNodeInput struct {
	ID string `json:"id"`
}

// DeleteNodeSpec is delete_node's contract (spec 000).
func DeleteNodeSpec() mcp.Tool {
	return mcp.NewTool(DeleteNodeName,
		mcp.WithDescription("Delete a note's file; links to it stay, unresolved. {deleted: false} if there is no such note."),
		mcp.WithString("id", mcp.Required(),
			mcp.Description(idShort)),
		mcp.WithSchemaAdditionalProperties(false),
		tools.OutputSchema[DeleteResponse](),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			Title:           "Delete a note",
			ReadOnlyHint:    mcp.ToBoolPtr(false),
			DestructiveHint: mcp.ToBoolPtr(true),
			// A repeat finds nothing to delete and answers deleted: false.
			IdempotentHint: mcp.ToBoolPtr(true),
			OpenWorldHint:  mcp.ToBoolPtr(false),
		}),
	)
}
