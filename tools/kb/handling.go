package kb

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// handling is how the toolset answers (tools.Handle): run's answer is
// sent as a JSON object, and any error becomes spec 002's error result
// (toErrorBody). Each call collects its own warnings
// (core.WithCallWarnings); a successful answer carries them in a
// "_warnings" field (spec 001's warnings, as the graph toolset): a note
// written while the graph store was down says that its graph change is
// queued (issue 44.5).
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
			res := successResult(out)
			if warnings := core.CallWarningsOf(ctx).List(); len(warnings) > 0 {
				_, list := mustJSON(warnings)
				if obj, ok := res.StructuredContent.(json.RawMessage); ok {
					merged := tools.AddJSONField(obj, "_warnings", list)
					res.StructuredContent = merged
					res.Content[0] = mcp.NewTextContent(string(merged))
				}
			}
			return res
		},
	}
}
