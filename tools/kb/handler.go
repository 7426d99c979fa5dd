package kb

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// handling is how the toolset answers (tools.Handle): run's answer is
// sent as a JSON object, and any error becomes spec 002's error result
// (toErrorBody).
func (d Deps) handling() tools.Handling {
	return tools.Handling{
		Fail: func(ctx context.Context, tool string, err error) *mcp.CallToolResult {
			return errorResult(d.toErrorBody(ctx, tool, err))
		},
		OK: func(_ context.Context, out any) *mcp.CallToolResult { return successResult(out) },
	}
}
