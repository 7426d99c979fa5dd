package docindex

import (
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
)

// SearchWithBudgetHandler answers search_with_budget.
func SearchWithBudgetHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), SearchWithBudgetSpec(), func(ctx context.Context, in SearchWithBudgetInput) (any, error) {
		r, err := d.Index.SearchWithBudget(ctx, in.Query, tools.IntOr(in.MaxTokens, 3000))
		if err != nil {
			return nil, err
		}
		return SearchWithBudgetOutput{
			Results: results(r.Hits), TokensUsed: r.TokensUsed, BudgetRemaining: r.BudgetRemaining,
			Truncated: r.Truncated, TruncatedCount: r.TruncatedCount,
		}, nil
	})
}
