package graph

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// Name and default of search.
const (
	SearchName         = "search"
	searchDefaultLimit = 10
)

// SearchInput is search's arguments.
type SearchInput struct {
	Query string     `json:"query"`
	Limit *tools.Int `json:"limit"`
}

// SearchSpec is search's contract (spec 000). It is offered only when an
// embedding provider is configured (spec 001).
func SearchSpec() mcp.Tool {
	return mcp.NewTool(SearchName,
		mcp.WithDescription("Notes closest in meaning to the query, best first, score 0-1. Content cut to 500 chars. None: []."),
		mcp.WithString("query", mcp.Required(),
			mcp.Description("Natural-language query")),
		mcp.WithInteger("limit",
			mcp.Min(1), mcp.Max(core.MaxSearchLimit), mcp.DefaultNumber(searchDefaultLimit),
			mcp.Description("Maximum notes")),
		mcp.WithSchemaAdditionalProperties(false),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			Title:           "Search notes by meaning",
			ReadOnlyHint:    mcp.ToBoolPtr(true),
			DestructiveHint: mcp.ToBoolPtr(false),
			IdempotentHint:  mcp.ToBoolPtr(true),
			OpenWorldHint:   mcp.ToBoolPtr(false),
		}),
	)
}
