package graph

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// DeleteNodeHandler answers delete_node with DeleteResponse.
func DeleteNodeHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), DeleteNodeSpec(), func(ctx context.Context, in DeleteNodeInput) (any, error) {
		deleted, err := d.Writer.Delete(ctx, in.ID)
		if err != nil {
			return nil, err
		}
		return DeleteResponse{Deleted: deleted}, nil
	})
}
