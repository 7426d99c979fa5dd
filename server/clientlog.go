package server

import (
	"context"
	"log/slog"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// ClientLogs sends the server's log lines to the MCP clients that asked
// for them (logging/setLevel, per session; mcp-go's default level for a
// session is error) as notifications/message. Its Handler wraps the
// process's slog handler: every line still goes to stderr as before, and a
// line that stderr's level lets through also goes to each session whose
// level it reaches, with the same redaction of secrets.
//
// Several servers may share one ClientLogs (the owning process of a state
// folder builds one per tool surface its local clients ask for); session
// IDs are unique across them.
type ClientLogs struct {
	sessions sync.Map // session ID → *mcpserver.MCPServer that serves it
}

// NewClientLogs returns a ClientLogs that sends nothing until New attaches
// it to a server (Options.ClientLogs).
func NewClientLogs() *ClientLogs { return &ClientLogs{} }

// Handler returns next with every record also sent to the clients.
// redact is applied to each attribute sent (nil: none).
func (c *ClientLogs) Handler(next slog.Handler, redact func([]string, slog.Attr) slog.Attr) slog.Handler {
	return &clientLogHandler{next: next, logs: c, redact: redact}
}

// attach starts sending to the sessions of srv, which hooks report.
func (c *ClientLogs) attach(srv *mcpserver.MCPServer, hooks *mcpserver.Hooks) {
	hooks.AddOnRegisterSession(func(_ context.Context, s mcpserver.ClientSession) { c.sessions.Store(s.SessionID(), srv) })
	hooks.AddOnUnregisterSession(func(_ context.Context, s mcpserver.ClientSession) { c.sessions.Delete(s.SessionID()) })
}

// send gives one line to every session whose level it reaches (mcp-go
// checks each session's level).
func (c *ClientLogs) send(level mcp.LoggingLevel, data map[string]any) {
	var n mcp.LoggingMessageNotification
	made := false
	c.sessions.Range(func(id, srv any) bool {
		if !made {
			n, made = mcp.NewLoggingMessageNotification(level, Name, data), true
		}
		_ = srv.(*mcpserver.MCPServer).SendLogMessageToSpecificClient(id.(string), n) // a full queue drops the line
		return true
	})
}

type clientLogHandler struct {
	next   slog.Handler
	logs   *ClientLogs
	redact func([]string, slog.Attr) slog.Attr
	attrs  []slog.Attr // from WithAttrs, with their groups in the key
	group  string      // the current group prefix, "a.b."
}

func (h *clientLogHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *clientLogHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.next.Handle(ctx, r)
	data := map[string]any{"msg": r.Message}
	add := func(prefix string, a slog.Attr) {
		if h.redact != nil {
			a = h.redact(nil, a)
		}
		if a.Key == "" {
			return
		}
		data[prefix+a.Key] = a.Value.Resolve().Any()
	}
	for _, a := range h.attrs {
		add("", a)
	}
	r.Attrs(func(a slog.Attr) bool {
		add(h.group, a)
		return true
	})
	h.logs.send(mcpLevel(r.Level), data)
	return err
}

func (h *clientLogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.next = h.next.WithAttrs(attrs)
	c.attrs = append([]slog.Attr(nil), h.attrs...)
	for _, a := range attrs {
		a.Key = h.group + a.Key
		c.attrs = append(c.attrs, a)
	}
	return &c
}

func (h *clientLogHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.next = h.next.WithGroup(name)
	c.group = h.group + name + "."
	return &c
}

// mcpLevel maps a slog level onto the syslog levels MCP uses.
func mcpLevel(l slog.Level) mcp.LoggingLevel {
	switch {
	case l >= slog.LevelError:
		return mcp.LoggingLevelError
	case l >= slog.LevelWarn:
		return mcp.LoggingLevelWarning
	case l >= slog.LevelInfo:
		return mcp.LoggingLevelInfo
	default:
		return mcp.LoggingLevelDebug
	}
}
