package docindex

import (
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
)

// IndexDirectoryHandler answers index_directory.
func IndexDirectoryHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), IndexDirectorySpec(), func(ctx context.Context, in IndexDirectoryInput) (any, error) {
		r, err := d.Index.IndexDirectory(ctx, in.DirPath, tools.Or(in.Recursive, true), tools.Or(in.Namespace, "default"))
		if err != nil {
			return nil, err
		}
		out := IndexDirectoryOutput{FilesIndexed: r.FilesIndexed, TotalChunks: r.TotalChunks, SkippedDuplicates: r.SkippedDuplicates, FailedFiles: []FailedFile{}}
		for _, f := range r.FailedFiles {
			out.FailedFiles = append(out.FailedFiles, FailedFile{File: f.File, Error: f.Error})
		}
		return out, nil
	})
}
