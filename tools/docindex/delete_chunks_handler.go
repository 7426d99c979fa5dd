package docindex

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
)

// DeleteChunksHandler answers delete_chunks.
func DeleteChunksHandler(d Deps) server.ToolHandlerFunc {
	return handle(d, DeleteChunksSpec(), func(ctx context.Context, in DeleteChunksInput) (any, error) {
		ids, err := d.Index.DeleteChunks(ctx, in.IDs)
		if err != nil {
			return nil, err
		}
		return DeleteChunksOutput{DeletedCount: len(ids), DeletedIDs: ids}, nil
	})
}
