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

// logCalls logs one line per tool call: DEBUG when a read-only tool
// answered, INFO when a tool that changes something answered or any tool
// answered with an error result (the model's mistake or a provider failure
// the toolset already logged), ERROR when the handler failed with a Go
// error, which is a bug. Arguments and results stay out of the log: they
// hold note text.
//
// A successful read is at DEBUG because at the default level its line was
// a second write to stderr for every call (beside the answer on stdout)
// and woke whatever reads stderr, on the path of the calls a client makes
// most (docs/DECISIONS.md); the metrics below still count and time it.
// readOnly holds the tools' ReadOnlyHint.
//
// The same outcome, the error result's code and the time go to m (nil: no
// metrics).
func logCalls(logger *slog.Logger, toolsets map[string]string, readOnly map[string]bool, m *metrics.Metrics) mcpserver.ToolHandlerMiddleware {
	return func(next mcpserver.ToolHandlerFunc) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			start := time.Now()
			res, err := next(ctx, req)
			took := time.Since(start)
			level := slog.LevelInfo
			outcome, code := "ok", ""
			switch {
			case err != nil:
				level = slog.LevelError
				outcome = "error"
			case res != nil && res.IsError:
				outcome, code = "error_result", errorCode(res)
			case readOnly[req.Params.Name]:
				level = slog.LevelDebug
			}
			if logger.Enabled(ctx, level) {
				attrs := []slog.Attr{
					slog.String(logKeyTool, req.Params.Name),
					slog.String(logKeyToolset, toolsets[req.Params.Name]),
					slog.Float64(logKeyDuration, took.Seconds()),
					slog.String(logKeyOutcome, outcome),
				}
				if err != nil {
					attrs = append(attrs, slog.String(logKeyErr, err.Error()))
				}
				logger.LogAttrs(ctx, level, "tool call", attrs...)
			}
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
