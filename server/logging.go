package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
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
func logCalls(logger *slog.Logger, toolsets map[string]string) mcpserver.ToolHandlerMiddleware {
	return func(next mcpserver.ToolHandlerFunc) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			start := time.Now()
			res, err := next(ctx, req)
			attrs := []slog.Attr{
				slog.String(logKeyTool, req.Params.Name),
				slog.String(logKeyToolset, toolsets[req.Params.Name]),
				slog.Float64(logKeyDuration, time.Since(start).Seconds()),
			}
			level := slog.LevelInfo
			switch {
			case err != nil:
				level = slog.LevelError
				attrs = append(attrs, slog.String(logKeyOutcome, "error"), slog.String(logKeyErr, err.Error()))
			case res != nil && res.IsError:
				attrs = append(attrs, slog.String(logKeyOutcome, "error_result"))
			default:
				attrs = append(attrs, slog.String(logKeyOutcome, "ok"))
			}
			logger.LogAttrs(ctx, level, "tool call", attrs...)
			return res, err
		}
	}
}
