package docindex

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/tools"
)

// SearchWithBudgetName is the tool's name.
const SearchWithBudgetName = "search_with_budget"

// SearchWithBudgetInput is search_with_budget's arguments.
type SearchWithBudgetInput struct {
	Query     string     `json:"query"`
	MaxTokens *tools.Int `json:"max_tokens"`
}

// SearchWithBudgetOutput is search_with_budget's data.
type SearchWithBudgetOutput struct {
	Results         []Result `json:"results"`
	TokensUsed      int      `json:"tokens_used"`
	BudgetRemaining int      `json:"budget_remaining"`
	Truncated       bool     `json:"truncated"`
	TruncatedCount  int      `json:"truncated_count"`
}

// SearchWithBudgetSpec is search_with_budget's contract (spec 004).
func SearchWithBudgetSpec() mcp.Tool {
	return mcp.NewTool(SearchWithBudgetName,
		mcp.WithDescription("Search and return results within a token budget. Up to 50 candidates are ranked by similarity and returned in score order while their content fits in max_tokens "+
			"(estimated at one token per 4 characters); truncated_count says how many were left out. tokens_used never exceeds max_tokens."),
		mcp.WithString("query", mcp.Required(),
			mcp.Description("Search query")),
		mcp.WithInteger("max_tokens", mcp.Required(), mcp.DefaultNumber(3000),
			mcp.Description("Maximum tokens in results")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Search within a token budget", true, false, true),
	)
}
