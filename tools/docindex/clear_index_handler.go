package docindex

import (
	"context"

	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultgraph/vaultgraph/docindex"
	"github.com/vaultgraph/vaultgraph/tools"
)

// ClearIndexHandler answers clear_index.
func ClearIndexHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), ClearIndexSpec(), func(ctx context.Context, in ClearIndexInput) (any, error) {
		if !in.Confirm {
			return nil, &docindex.Error{Kind: docindex.ErrInvalid, Msg: safetyMessage}
		}
		n, err := d.Index.Clear(ctx)
		if err != nil {
			return nil, err
		}
		return ClearIndexOutput{DeletedCount: n}, nil
	})
}
