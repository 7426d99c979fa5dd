package memory

import (
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
)

// MemoryContextResponse is memory_context's data.
type MemoryContextResponse struct {
	Context         string   `json:"context"`
	TokenEstimate   int      `json:"token_estimate"`
	MemoryCount     int      `json:"memory_count"`
	GoldenRuleCount int      `json:"golden_rule_count"`
	MemoryIDs       []string `json:"memory_ids"`
}

// MemoryContextHandler answers memory_context.
func MemoryContextHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), MemoryContextSpec(), func(ctx context.Context, in MemoryContextInput) (any, error) {
		res, err := d.Memories.Context(ctx, in.Query, in.Namespace, tools.IntOr(in.TokenBudget, DefaultTokenBudget))
		if err != nil {
			return nil, err
		}
		return MemoryContextResponse{Context: res.Context, TokenEstimate: res.TokenEstimate, MemoryCount: res.MemoryCount,
			GoldenRuleCount: res.GoldenRuleCount, MemoryIDs: res.IDs}, nil
	})
}
