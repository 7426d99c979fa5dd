package memory

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
	mem "github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/tools"
	"github.com/vaultgraph/vaultgraph/tools/envelope"
)

// Messages for failures the model cannot fix by changing its arguments.
// The cause is logged, never shown.
const (
	msgProvider  = "The memory store or the embedding provider failed to answer; try again later"
	msgCancelled = "The request was cancelled or timed out before it finished"
)

// handle builds a tool handler around run: the arguments are checked
// against spec's published input schema and decoded into In, and run's
// answer goes out in spec 004's envelope, {"success":true,"data":...} or
// {"success":false,"error":"..."} with isError set. Handlers never return
// a Go error.
func handle[In any](d Deps, spec mcp.Tool, run func(ctx context.Context, in In) (any, error)) server.ToolHandlerFunc {
	return handleChecked(d, spec, nil, run)
}

// handleChecked is handle with a check of the raw arguments that runs
// before the schema's, for the errors spec 004 words itself ("Invalid
// memory type: x" rather than the schema's enum message).
func handleChecked[In any](d Deps, spec mcp.Tool, precheck func(args map[string]any) error, run func(ctx context.Context, in In) (any, error)) server.ToolHandlerFunc {
	args := tools.MustArguments(spec)
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if precheck != nil {
			if err := precheck(req.GetArguments()); err != nil {
				return envelope.Fail(d.message(ctx, spec.Name, err)), nil
			}
		}
		var in In
		if err := args.Decode(req, &in); err != nil {
			return envelope.Fail(d.message(ctx, spec.Name, err)), nil
		}
		out, err := run(ctx, in)
		if err != nil {
			return envelope.Fail(d.message(ctx, spec.Name, err)), nil
		}
		return envelope.OK(out), nil
	}
}

// message maps an error to the text the model sees, logging what it must
// not see, once.
func (d Deps) message(ctx context.Context, tool string, err error) string {
	var me *mem.Error
	var argErr *tools.ArgumentError
	var coreArg *core.ArgumentError
	switch {
	case errors.As(err, &me):
		return me.Msg
	case errors.As(err, &argErr):
		return argErr.Msg
	case errors.As(err, &coreArg):
		return coreArg.Msg
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return msgCancelled
	default:
		tools.LogUnforeseen(ctx, d.logger(), tool, tools.ToolsetMemory, err) // no mapping: a failure we did not foresee
		return tools.ProviderMessage(err, msgProvider)
	}
}
