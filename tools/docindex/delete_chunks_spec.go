package docindex

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// DeleteChunksName is the tool's name.
const DeleteChunksName = "delete_chunks"

// DeleteChunksInput is delete_chunks' arguments.
type DeleteChunksInput struct {
	IDs []string `json:"ids"`
}

// DeleteChunksOutput is delete_chunks' data: the IDs that existed.
type DeleteChunksOutput struct {
	DeletedCount int      `json:"deleted_count"`
	DeletedIDs   []string `json:"deleted_ids"`
}

// DeleteChunksSpec is delete_chunks' contract (spec 004).
func DeleteChunksSpec() mcp.Tool {
	return mcp.NewTool(DeleteChunksName,
		mcp.WithDescription("Delete specific chunks by their IDs. IDs that do not exist are ignored; deleted_ids lists those that did."),
		mcp.WithArray("ids", mcp.Required(), mcp.WithStringItems(),
			mcp.Description("List of chunk IDs to delete")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Delete chunks", false, true, true),
	)
}
