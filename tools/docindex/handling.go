package docindex

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/docindex"
	"github.com/vaultgraph/vaultgraph/tools"
	"github.com/vaultgraph/vaultgraph/tools/envelope"
)

// handling is how the toolset answers (tools.Handle): run's data goes
// into spec 004's success envelope, arguments the schema refuses into the
// failure envelope with the schema's message, and any other error into
// the failure envelope with message's text.
func (d Deps) handling() tools.Handling {
	return tools.Handling{
		Fail: func(ctx context.Context, tool string, err error) *mcp.CallToolResult {
			var refused *tools.ArgumentError
			if errors.As(err, &refused) {
				return envelope.Fail(refused.Msg)
			}
			return envelope.Fail(d.message(ctx, tool, err))
		},
		OK: func(_ context.Context, out any) *mcp.CallToolResult { return envelope.OK(out) },
	}
}

// message maps an error to the text the model sees: the spec's message for
// errors the client can act on, a fixed sentence (and one log line with
// the cause) for a failing store or embedding service.
func (d Deps) message(ctx context.Context, tool string, err error) string {
	var de *docindex.Error
	if errors.As(err, &de) {
		return de.Msg
	}
	var ae *core.ArgumentError
	if errors.As(err, &ae) {
		return ae.Msg
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "Request cancelled or timed out"
	}
	d.logger().ErrorContext(ctx, "document tool failed", "tool", tool, "err", err)
	if core.IsProviderError(err) {
		return "Document index unavailable: the store or the embedding service failed; try again later"
	}
	return "Internal error in " + tool
}
