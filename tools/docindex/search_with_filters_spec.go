package docindex

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/tools"
)

// SearchWithFiltersName is the tool's name.
const SearchWithFiltersName = "search_with_filters"

// Filters are search_with_filters' metadata filters; each given one must
// match.
type Filters struct {
	Namespace  *string `json:"namespace"`
	DocType    *string `json:"doc_type"`
	SourceFile *string `json:"source_file"`
}

// SearchWithFiltersInput is search_with_filters' arguments.
type SearchWithFiltersInput struct {
	Query    string     `json:"query"`
	Filters  Filters    `json:"filters"`
	NResults *tools.Int `json:"n_results"`
}

// SearchWithFiltersOutput is search's data plus the filters applied.
type SearchWithFiltersOutput struct {
	SearchOutput
	Filters map[string]*string `json:"filters"`
}

// SearchWithFiltersSpec is search_with_filters' contract (spec 004).
func SearchWithFiltersSpec() mcp.Tool {
	return mcp.NewTool(SearchWithFiltersName,
		mcp.WithDescription("Search with metadata filtering for scoped retrieval. Filters: namespace, doc_type (\"document\" or \"memory\") and source_file (a path as given to index_file); every filter given must match."),
		mcp.WithString("query", mcp.Required(),
			mcp.Description("Natural language search query")),
		mcp.WithObject("filters", mcp.Required(),
			mcp.Description("Metadata filters to apply"),
			mcp.Properties(map[string]any{
				"namespace":   map[string]any{"type": "string", "description": "Only results in this namespace"},
				"doc_type":    map[string]any{"type": "string", "description": "Only results of this type: document or memory"},
				"source_file": map[string]any{"type": "string", "description": "Only chunks of this source file"},
			}),
			// A filter this search cannot apply is refused, not ignored:
			// ignoring it would answer unfiltered results as filtered.
			mcp.AdditionalProperties(false)),
		mcp.WithInteger("n_results", mcp.DefaultNumber(defaultNResults), mcp.Min(1), mcp.Max(maxNResults),
			mcp.Description("Maximum number of results to return")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Search with filters", true, false, true),
	)
}
