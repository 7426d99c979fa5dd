package tools

import (
	"context"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// progressInterval is the least time between two progress notifications of
// one call: a loop that reports every item must not flood the client (or
// fill the session's notification queue, which drops what does not fit).
// The first report and the last (progress == total) are always sent.
const progressInterval = 100 * time.Millisecond

// ProgressReporter sends MCP progress notifications for one tool call.
// Its methods are safe for concurrent use, and do nothing on a nil
// reporter or for a call whose client asked for no progress.
type ProgressReporter struct {
	send   func(params map[string]any) error
	settle func() // after a final report; nil: nothing to wait for
	token  mcp.ProgressToken

	mu       sync.Mutex
	last     float64 // the progress last sent; the spec wants it to increase
	lastSent time.Time
	sent     bool
	now      func() time.Time
}

// Progress returns the progress reporter of a tool call: when the request
// carried `_meta.progressToken`, each Report sends `notifications/progress`
// with that token to the client that made the call (on stdio, and on the
// HTTP answer's event stream); otherwise Report does nothing. A long tool
// calls it once and reports as it goes:
//
//	p := tools.Progress(ctx, req)
//	for i, f := range files {
//		p.Report(float64(i), float64(len(files)), "indexing "+f)
//		...
//	}
//	p.Report(float64(len(files)), float64(len(files)), "done")
//
// Reports closer than 100 ms apart are dropped (except the first and the
// final one), as are reports whose progress does not increase.
func Progress(ctx context.Context, req mcp.CallToolRequest) *ProgressReporter {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return nil
	}
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return nil
	}
	session := server.ClientSessionFromContext(ctx)
	return &ProgressReporter{
		token: req.Params.Meta.ProgressToken,
		send: func(params map[string]any) error {
			return srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), params)
		},
		settle: func() { settle(session) },
		now:    time.Now,
	}
}

// OrderedNotifications is implemented by a session whose transport writes
// every notification queued during a request before the request's answer
// (vaultgraph's stdio transport): a final report needs no settling there.
type OrderedNotifications interface {
	OrderedNotifications()
}

// settleWait bounds how long a final report waits for its notification to
// be written: long enough for a forwarder to write one line.
const (
	settleWait  = 50 * time.Millisecond
	settleGrace = 2 * time.Millisecond
)

// settle works around mcp-go v1.2.1's streamable HTTP transport, whose
// per-request forwarder can take a notification off the session's queue
// just as the handler returns and then drop it, seeing the request done
// (mcp-go's conformance baseline lists progress and logging for this).
// After a final report it waits until the queue is empty and the
// forwarder had a moment to write, so the last progress (the one a client
// shows as "done") is not lost. Earlier reports need nothing: the handler
// is still running when they are written.
func settle(session server.ClientSession) {
	if session == nil {
		return
	}
	if _, ordered := session.(OrderedNotifications); ordered {
		return
	}
	ch := session.NotificationChannel()
	deadline := time.Now().Add(settleWait)
	for len(ch) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Microsecond)
	}
	time.Sleep(settleGrace)
}

// Enabled reports whether reports are sent (the client asked for progress):
// a tool can skip the work of describing its progress otherwise.
func (p *ProgressReporter) Enabled() bool { return p != nil }

// Report sends the progress so far: progress of total units (total 0:
// unknown), with an optional message for a person. Failures to send are
// ignored: progress is advice, never a reason to fail the call.
func (p *ProgressReporter) Report(progress, total float64, message string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	final := total > 0 && progress >= total
	now := p.now()
	if p.sent && (progress <= p.last || (!final && now.Sub(p.lastSent) < progressInterval)) {
		p.mu.Unlock()
		return
	}
	p.sent, p.last, p.lastSent = true, progress, now
	p.mu.Unlock()
	params := map[string]any{"progressToken": p.token, "progress": progress}
	if total > 0 {
		params["total"] = total
	}
	if message != "" {
		params["message"] = message
	}
	_ = p.send(params)
	if final && p.settle != nil {
		p.settle()
	}
}
