package docindex

import (
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
)

// IndexFileHandler answers index_file.
func IndexFileHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), IndexFileSpec(), func(ctx context.Context, in IndexFileInput) (any, error) {
		r, err := d.Index.IndexFile(ctx, in.FilePath, tools.Or(in.Namespace, "default"))
		if err != nil {
			return nil, err
		}
		out := IndexFileOutput{SourceFile: r.SourceFile, Namespace: r.Namespace, ChunkIDs: r.ChunkIDs, SkippedDuplicate: r.Skipped}
		if out.ChunkIDs == nil {
			out.ChunkIDs = []string{}
		}
		if !r.Skipped {
			out.ChunksCreated = len(r.ChunkIDs)
		}
		return out, nil
	})
}
