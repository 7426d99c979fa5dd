package docindex

import (
	"context"
	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultgraph/vaultgraph/docindex"
)

// SearchWithFiltersHandler answers search_with_filters.
func SearchWithFiltersHandler(d Deps) server.ToolHandlerFunc {
	return handle(d, SearchWithFiltersSpec(), func(ctx context.Context, in SearchWithFiltersInput) (any, error) {
		f := docindex.Filter{
			Namespace:  tools.Or(in.Filters.Namespace, ""),
			DocType:    tools.Or(in.Filters.DocType, ""),
			SourceFile: tools.Or(in.Filters.SourceFile, ""),
		}
		hits, err := d.Index.Search(ctx, in.Query, f, tools.IntOr(in.NResults, defaultNResults))
		if err != nil {
			return nil, err
		}
		return SearchWithFiltersOutput{
			SearchOutput: searchOutput(in.Query, hits),
			Filters:      map[string]*string{"namespace": in.Filters.Namespace, "doc_type": in.Filters.DocType, "source_file": in.Filters.SourceFile},
		}, nil
	})
}
