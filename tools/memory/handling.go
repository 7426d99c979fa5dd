package memory

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
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

// handling is how the toolset answers (tools.Handle): run's answer goes
// out in spec 004's envelope, {"success":true,"data":...} or
// {"success":false,"error":"..."} with isError set, the error's text
// written by message. memory_store adds a check of the raw arguments
// before the schema's (tools.Handling.WithPrecheck).
func (d Deps) handling() tools.Handling {
	return tools.Handling{
		Fail: func(ctx context.Context, tool string, err error) *mcp.CallToolResult {
			return envelope.Fail(d.message(ctx, tool, err))
		},
		OK: func(_ context.Context, out any) *mcp.CallToolResult { return envelope.OK(out) },
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
