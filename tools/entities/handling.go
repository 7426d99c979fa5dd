package entities

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/tools"
)

// handling is how the toolset answers (tools.Handle): the call gets the
// toolset's timeout, the arguments are checked by the toolset's own
// decoder (arguments, whose errors say where each violation is), run's
// answer is sent as JSON text and structuredContent, and any failure
// becomes the spec's envelope.
func (d Deps) handling() tools.Handling {
	return tools.Handling{
		Begin: func(ctx context.Context) (context.Context, func()) {
			return context.WithTimeout(ctx, d.timeout())
		},
		Arguments: func(spec mcp.Tool) tools.Decoder { return mustArguments(spec) },
		Fail: func(ctx context.Context, tool string, err error) *mcp.CallToolResult {
			return errorResult(d.toErrorBody(ctx, tool, err))
		},
		OK: func(_ context.Context, out any) *mcp.CallToolResult {
			text, raw := mustJSON(out)
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, StructuredContent: raw}
		},
	}
}

// errorResult is the isError tool result carrying body (tools.ErrorResult).
func errorResult(body ErrorBody) *mcp.CallToolResult {
	return tools.ErrorResult(ErrorResponse{Error: body})
}

// mustJSON is tools.EncodeJSON.
func mustJSON(v any) (string, json.RawMessage) { return tools.EncodeJSON(v) }
