package graph

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// handle builds a tool handler around run: the arguments are checked
// against spec's published input schema and decoded into In, run's answer
// is shaped by successResult, and any error becomes the spec's error
// result. Handlers therefore never return a Go error: every failure here
// is one the model should see (spec 000 error codes).
func handle[In any](d Deps, spec mcp.Tool, run func(ctx context.Context, in In) (any, error)) server.ToolHandlerFunc {
	args := tools.MustArguments(spec)
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		if err := args.Decode(req, &in); err != nil {
			return errorResult(d.toErrorBody(ctx, spec.Name, err)), nil
		}
		out, err := run(ctx, in)
		if err != nil {
			return errorResult(d.toErrorBody(ctx, spec.Name, err)), nil
		}
		return successResult(ctx, out), nil
	}
}
