package edit

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// warned is an answer that carries the call's warnings (spec 000's
// "_warnings": problems of what the call wrote, such as a broken link).
type warned interface{ setWarnings([]string) }

// handling is how the toolset answers (tools.Handle): each call collects
// its own warnings (core.WithCallWarnings), which a warned answer
// carries; an answer goes out as JSON text and structuredContent, and
// every error becomes an error result (toErrorBody).
func (d Deps) handling() tools.Handling {
	return tools.Handling{
		Begin: func(ctx context.Context) (context.Context, func()) {
			ctx, _ = core.WithCallWarnings(ctx)
			return ctx, func() {}
		},
		Fail: func(ctx context.Context, tool string, err error) *mcp.CallToolResult {
			return errorResult(d.toErrorBody(ctx, tool, err))
		},
		OK: func(ctx context.Context, out any) *mcp.CallToolResult {
			if w, ok := out.(warned); ok {
				w.setWarnings(core.CallWarningsOf(ctx).List())
			}
			text, raw := tools.EncodeJSON(out)
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, StructuredContent: raw}
		},
	}
}

// errorResult is the isError tool result carrying body (tools.ErrorResult).
func errorResult(body ErrorBody) *mcp.CallToolResult {
	return tools.ErrorResult(ErrorResponse{Error: body})
}
