package docindex

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// DeleteFileHandler answers delete_file.
func DeleteFileHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), DeleteFileSpec(), func(ctx context.Context, in DeleteFileInput) (any, error) {
		src, n, err := d.Index.DeleteFile(ctx, in.SourceFile)
		if err != nil {
			return nil, err
		}
		return DeleteFileOutput{DeletedCount: n, SourceFile: src}, nil
	})
}
