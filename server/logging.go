package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/metrics"
)

// Log keys of a tool call line; fixed so that logs can be searched.
const (
	logKeyTool     = "tool"
	logKeyToolset  = "toolset"
	logKeyDuration = "duration_s"
	logKeyOutcome  = "outcome" // ok | error_result (the model was told) | error (a bug)
	logKeyErr      = "err"
)

// logCalls logs one line per tool call: INFO when the call answered (an
// error result is the model's mistake or a provider failure the toolset
// already logged), ERROR when the handler failed with a Go error, which is
// a bug. Arguments and results stay out of the log: they hold note text.
//
// The same outcome, the error result's code and the time go to m (nil: no
// metrics).
func logCalls(logger *slog.Logger, toolsets map[string]string, m *metrics.Metrics) mcpserver.ToolHandlerMiddleware {
	return func(next mcpserver.ToolHandlerFunc) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			start := time.Now()
			res, err := next(ctx, req)
			took := time.Since(start)
			attrs := []slog.Attr{
				slog.String(logKeyTool, req.Params.Name),
				slog.String(logKeyToolset, toolsets[req.Params.Name]),
				slog.Float64(logKeyDuration, took.Seconds()),
			}
			level := slog.LevelInfo
			outcome, code := "ok", ""
			switch {
			case err != nil:
				level = slog.LevelError
				outcome = "error"
				attrs = append(attrs, slog.String(logKeyOutcome, outcome), slog.String(logKeyErr, err.Error()))
			case res != nil && res.IsError:
				outcome, code = "error_result", errorCode(res)
				attrs = append(attrs, slog.String(logKeyOutcome, outcome))
			default:
				attrs = append(attrs, slog.String(logKeyOutcome, outcome))
			}
			logger.LogAttrs(ctx, level, "tool call", attrs...)
			m.ToolCall(req.Params.Name, outcome, code, took)
			return res, err
		}
	}
}

// errorCode reads the code of an error result in the shape every
// vaultgraph toolset answers, {"error":{"code":...}}; "unknown" otherwise
// (an error mcp-go made, such as an unknown tool).
func errorCode(res *mcp.CallToolResult) string {
	var raw []byte
	switch sc := res.StructuredContent.(type) {
	case json.RawMessage:
		raw = sc
	default:
		if len(res.Content) > 0 {
			if tc, ok := res.Content[0].(mcp.TextContent); ok {
				raw = []byte(tc.Text)
			}
		}
	}
	var body struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &body) != nil || body.Error.Code == "" {
		return "unknown"
	}
	return body.Error.Code
}
