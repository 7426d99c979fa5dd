package graph

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// handling is how the toolset answers (tools.Handle): run's answer is
// shaped by successResult, and any error becomes spec 000's error result
// (toErrorBody).
func (d Deps) handling() tools.Handling {
	return tools.Handling{
		Fail: func(ctx context.Context, tool string, err error) *mcp.CallToolResult {
			return errorResult(d.toErrorBody(ctx, tool, err))
		},
		OK: successResult,
	}
}
