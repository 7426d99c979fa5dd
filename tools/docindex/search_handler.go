package docindex

import (
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultgraph/vaultgraph/docindex"
)

// SearchHandler answers search.
func SearchHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), SearchSpec(), func(ctx context.Context, in SearchInput) (any, error) {
		hits, err := d.Index.Search(ctx, in.Query, docindex.Filter{}, tools.IntOr(in.NResults, defaultNResults))
		if err != nil {
			return nil, err
		}
		return searchOutput(in.Query, hits), nil
	})
}

func searchOutput(query string, hits []docindex.Hit) SearchOutput {
	return SearchOutput{Results: results(hits), Total: len(hits), Query: query, TotalTokens: docindex.TotalTokens(hits)}
}
