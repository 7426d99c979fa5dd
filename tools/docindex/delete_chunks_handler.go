package docindex

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// DeleteChunksHandler answers delete_chunks.
func DeleteChunksHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), DeleteChunksSpec(), func(ctx context.Context, in DeleteChunksInput) (any, error) {
		ids, err := d.Index.DeleteChunks(ctx, in.IDs)
		if err != nil {
			return nil, err
		}
		return DeleteChunksOutput{DeletedCount: len(ids), DeletedIDs: ids}, nil
	})
}
