package docindex

import (
	"context"
	"log/slog"

	"github.com/vaultgraph/vaultgraph/docindex"
)

// Index is what the tools need from the document index service.
type Index interface {
	IndexFile(ctx context.Context, path, namespace string) (*docindex.FileResult, error)
	IndexDirectory(ctx context.Context, dir string, recursive bool, namespace string) (*docindex.DirResult, error)
	Search(ctx context.Context, query string, f docindex.Filter, limit int) ([]docindex.Hit, error)
	NormalizeFilter(f docindex.Filter) (docindex.Filter, error)
	SearchWithBudget(ctx context.Context, query string, maxTokens int) (*docindex.BudgetResult, error)
	DeleteChunks(ctx context.Context, ids []string) ([]string, error)
	DeleteFile(ctx context.Context, sourceFile string) (string, int, error)
	Clear(ctx context.Context) (int, error)
	Stats(ctx context.Context) (*docindex.Stats, error)
}

var _ Index = (*docindex.Service)(nil)

// Deps are the toolset's dependencies, built once by the caller.
type Deps struct {
	Index  Index        // required
	Logger *slog.Logger // failures the client cannot fix are logged here; nil: slog.Default()
}

func (d Deps) logger() *slog.Logger {
	if d.Logger == nil {
		return slog.Default()
	}
	return d.Logger
}
