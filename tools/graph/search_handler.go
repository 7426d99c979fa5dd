package graph

import (
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
)

// SearchHandler answers search with SearchResultResponse[].
func SearchHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), SearchSpec(), func(ctx context.Context, in SearchInput) (any, error) {
		hits, err := d.Searcher.Search(ctx, in.Query, tools.IntOr(in.Limit, searchDefaultLimit))
		if err != nil {
			return nil, err
		}
		out := make([]SearchResultResponse, len(hits))
		for i, h := range hits {
			out[i] = SearchResultResponse{NodeResponse: nodeResponse(h.NodeView), Score: h.Score}
		}
		return out, nil
	})
}
