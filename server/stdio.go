package server

import (
	"context"
	"io"
	"log/slog"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves srv over newline-delimited JSON-RPC on stdin/stdout
// until stdin ends or ctx is cancelled. Only JSON-RPC messages are written
// to stdout; the transport's own errors go to logger (nil: slog.Default()).
// A message (line) over MaxStdioMessageBytes is skipped and answered with
// a JSON-RPC error.
//
// mcp-go keeps one stdio session per process, so serve one stdio stream at
// a time.
func ServeStdio(ctx context.Context, srv *mcpserver.MCPServer, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	s := mcpserver.NewStdioServer(srv)
	s.SetErrorLogger(slog.NewLogLogger(logger.Handler(), slog.LevelError))
	out := &lockedWriter{w: stdout}
	in := newLineLimiter(stdin, MaxStdioMessageBytes, out, logger)
	if err := s.Listen(ctx, in, out); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}
