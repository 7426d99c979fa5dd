package docindex

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/tools"
)

// SearchName is the tool's name in spec 004. With the graph toolset
// enabled too it is published as memory_search (tools.DefaultRenames).
const SearchName = "search"

// Defaults and limits of the search tools.
const (
	defaultNResults = 5
	maxNResults     = 50
)

// SearchInput is search's arguments.
type SearchInput struct {
	Query    string     `json:"query"`
	NResults *tools.Int `json:"n_results"`
}

// SearchOutput is search's (and search_with_filters') data. TotalTokens
// is the estimate (docindex.EstimateTokens) of the results' content.
type SearchOutput struct {
	Results     []Result `json:"results"`
	Total       int      `json:"total"`
	Query       string   `json:"query"`
	TotalTokens int      `json:"total_tokens"`
}

// SearchSpec is search's contract (spec 004).
func SearchSpec() mcp.Tool {
	return mcp.NewTool(SearchName,
		mcp.WithDescription("Perform semantic search across indexed documents and memories. Results are best first, each with a score from 0 to 1 (higher = more similar) and its metadata (source_file, chunk_index, header_path)."),
		mcp.WithString("query", mcp.Required(),
			mcp.Description("Natural language search query")),
		mcp.WithInteger("n_results", mcp.DefaultNumber(defaultNResults), mcp.Min(1), mcp.Max(maxNResults),
			mcp.Description("Maximum number of results to return")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Search documents and memories", true, false, true),
	)
}
