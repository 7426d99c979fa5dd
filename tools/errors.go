package tools

import (
	"context"
	"errors"
	"log/slog"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/core"
)

// ErrorResult is the isError tool result carrying a toolset's error
// response as JSON text. It has no structuredContent: a tool's
// outputSchema describes its answers, and a client of the official SDK
// validates the structuredContent of an error result against it too.
func ErrorResult(response any) *mcp.CallToolResult {
	text, _ := EncodeJSON(response)
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, IsError: true}
}

// LogUnforeseen logs a failure no error mapping of a toolset foresaw: at
// ERROR, or at WARN when a provider failed (the store, the embedder),
// which happens now and then without a fault of ours.
func LogUnforeseen(ctx context.Context, logger *slog.Logger, tool, toolset string, err error) {
	level := slog.LevelError
	if core.IsProviderError(err) {
		level = slog.LevelWarn
	}
	logger.Log(ctx, level, "tool failed", "tool", tool, "toolset", toolset, "err", err)
}

// ProviderMessage is the message of a provider failure: the hint of a
// store known to be down (a *core.UnavailableError from its circuit
// breaker: what is down, and to retry in a few seconds), else fallback.
func ProviderMessage(err error, fallback string) string {
	var un *core.UnavailableError
	if errors.As(err, &un) {
		return un.Hint()
	}
	return fallback
}
