package docindex

import (
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultgraph/vaultgraph/docindex"
)

// SearchWithFiltersHandler answers search_with_filters.
func SearchWithFiltersHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), SearchWithFiltersSpec(), func(ctx context.Context, in SearchWithFiltersInput) (any, error) {
		given := docindex.Filter{
			Namespace:  tools.Or(in.Filters.Namespace, ""),
			DocType:    tools.Or(in.Filters.DocType, ""),
			SourceFile: tools.Or(in.Filters.SourceFile, ""),
		}
		// The filters are echoed as applied: a relative or symlinked
		// source_file as the absolute real path it selects.
		f, err := d.Index.NormalizeFilter(given)
		if err != nil {
			return nil, err
		}
		hits, err := d.Index.Search(ctx, in.Query, f, tools.IntOr(in.NResults, defaultNResults))
		if err != nil {
			return nil, err
		}
		applied := map[string]*string{"namespace": in.Filters.Namespace, "doc_type": in.Filters.DocType, "source_file": nil}
		if in.Filters.SourceFile != nil {
			applied["source_file"] = &f.SourceFile
		}
		return SearchWithFiltersOutput{SearchOutput: searchOutput(in.Query, hits), Filters: applied}, nil
	})
}
