package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// FirstSync is the state of a server that answers while the vault's first
// sync runs (serve answers initialize at once, at any vault size). Until
// Finish, a read tool waits for the sync, at most:
//
//   - WarmWait when the store already holds the vault's notes (Warm: a
//     restart) and the request carries no progress token;
//   - FirstSyncWait otherwise (a store that holds nothing yet would answer
//     "not found" for every note; a client with a progress token hears
//     how long it has waited every second);
//
// and when the sync is still running then, it answers from the store as
// it is, with a notice in _warnings saying so. A write tool waits for the
// sync at most FirstSyncWait, then runs: a write to the vault waits in the
// vault's writer for what is left (vault.Config.FirstSyncWait, 5 s in
// serve), then fails with a provider error the client may retry. Both
// report progress every second. No call therefore waits for longer than
// 20 s before it is answered, however large the vault.
type FirstSync struct {
	start    time.Time
	done     chan struct{}
	once     sync.Once
	warm     chan struct{}
	warmOnce sync.Once
	onWait   func() // tests: called as a call starts waiting
}

// FirstSyncWait bounds how long a read tool waits for the first sync
// before it answers from the store: one with a progress token, or any
// while the store is not known to hold the vault's notes.
const FirstSyncWait = 15 * time.Second

// WarmWait bounds a read tool's wait, without a progress token, once the
// store is known to hold the vault's notes from an earlier run.
const WarmWait = 2 * time.Second

// firstSyncTick is the time between two progress notifications of a call
// that waits for the first sync.
const firstSyncTick = time.Second

// NewFirstSync returns the state of a first sync that starts now.
func NewFirstSync() *FirstSync {
	return &FirstSync{start: time.Now(), done: make(chan struct{}), warm: make(chan struct{})}
}

// Finish records that the first sync is over (done, or failed and left to
// the watcher). Calling it again does nothing.
func (f *FirstSync) Finish() { f.once.Do(func() { close(f.done) }) }

// Warm records that the store holds the vault's notes from an earlier
// run, so a read answered before the sync ends is worth having.
func (f *FirstSync) Warm() { f.warmOnce.Do(func() { close(f.warm) }) }

// Done is closed by Finish.
func (f *FirstSync) Done() <-chan struct{} { return f.done }

func (f *FirstSync) finished() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

// notice is the warning a read answered during the first sync carries.
func (f *FirstSync) notice() string {
	return fmt.Sprintf("vaultgraph is still syncing the vault (its first sync started %s ago): this answer is from the store as last synced, "+
		"so notes changed on disk since vaultgraph last ran may be missing or out of date; call again in a few seconds for a current answer",
		time.Since(f.start).Round(time.Second))
}

// message is the text of a progress notification while a call waits.
func (f *FirstSync) message() string {
	return fmt.Sprintf("waiting for the vault's first sync (running for %s)", time.Since(f.start).Round(time.Second))
}

// gate serves tool calls as FirstSync describes; readOnly holds
// the names of the read tools. It runs inside reportProgress, so
// core.ReportProgress reaches a client that sent a progress token.
func (f *FirstSync) gate(readOnly map[string]bool) mcpserver.ToolHandlerMiddleware {
	return func(next mcpserver.ToolHandlerFunc) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if f.finished() {
				return next(ctx, req)
			}
			if !readOnly[req.Params.Name] {
				// A write waits for the sync (it may need what the sync
				// stores: a note to index, a link to resolve), then runs;
				// the vault's writer bounds what is left of the wait
				// (vault.Config.FirstSyncWait).
				f.wait(ctx, true)
				return next(ctx, req)
			}
			f.wait(ctx, tools.Progress(ctx, req) != nil)
			if f.finished() {
				return next(ctx, req)
			}
			res, err := next(ctx, req)
			if err == nil && res != nil && !res.IsError {
				addWarning(res, f.notice())
			}
			return res, err
		}
	}
}

// wait waits for the sync as FirstSync describes, reporting progress
// every second; full waits FirstSyncWait even once the store is warm.
func (f *FirstSync) wait(ctx context.Context, full bool) {
	start := time.Now()
	limit := time.NewTimer(FirstSyncWait)
	defer limit.Stop()
	tick := time.NewTicker(firstSyncTick)
	defer tick.Stop()
	warm := f.warm
	if full {
		warm = nil
	}
	if f.onWait != nil {
		f.onWait()
	}
	n := 1
	core.ReportProgress(ctx, n, 0, f.message())
	for {
		select {
		case <-f.done:
			return
		case <-ctx.Done():
			return
		case <-limit.C:
			return
		case <-warm:
			warm = nil
			limit.Reset(max(WarmWait-time.Since(start), 0))
		case <-tick.C:
			n++
			core.ReportProgress(ctx, n, 0, f.message())
		}
	}
}

// addWarning adds msg to a successful answer's warnings: into an object
// answer's "_warnings" field when it has none yet (text and
// structuredContent), else as a text content {"_warnings": [msg]} after
// the answer, the form spec 000 gives answers that are not objects.
func addWarning(res *mcp.CallToolResult, msg string) {
	list, _ := json.Marshal([]string{msg})
	if text, merged, ok := warnedObject(res, msg, list); ok {
		if sc, ok := res.StructuredContent.(json.RawMessage); ok && bytes.Equal(bytes.TrimSpace(sc), text) {
			res.StructuredContent = json.RawMessage(merged)
		}
		res.Content[0] = mcp.NewTextContent(string(merged))
		return
	}
	res.Content = append(res.Content, mcp.NewTextContent(`{"_warnings":`+string(list)+`}`))
}

// warnedObject returns the answer's first text content with msg in its
// "_warnings" (and that content as it was), when it is a JSON object.
func warnedObject(res *mcp.CallToolResult, msg string, list []byte) (text, merged []byte, ok bool) {
	if len(res.Content) == 0 {
		return nil, nil, false
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		return nil, nil, false
	}
	text = bytes.TrimSpace([]byte(tc.Text))
	var obj map[string]json.RawMessage
	if len(text) < 2 || text[0] != '{' || json.Unmarshal(text, &obj) != nil {
		return nil, nil, false
	}
	merged, ok = withWarning(text, obj, msg, list)
	return text, merged, ok
}

// withWarning returns the object text with msg added to its "_warnings":
// appended to the list it has, or as a new field at the end.
func withWarning(text []byte, obj map[string]json.RawMessage, msg string, list []byte) ([]byte, bool) {
	old, has := obj["_warnings"]
	if !has {
		return appendField(text, "_warnings", list, len(obj) == 0), true
	}
	var prior []string
	if json.Unmarshal(old, &prior) != nil {
		return nil, false
	}
	field := append([]byte(`"_warnings":`), old...)
	if bytes.Count(text, field) != 1 {
		return nil, false // not compact: leave the answer alone
	}
	grown, _ := json.Marshal(append(prior, msg))
	return bytes.Replace(text, field, append([]byte(`"_warnings":`), grown...), 1), true
}

// appendField returns the JSON object obj with "key": value added last.
func appendField(obj []byte, key string, value []byte, empty bool) []byte {
	out := append([]byte(nil), obj[:len(obj)-1]...)
	out = bytes.TrimRight(out, " \t\r\n")
	if !empty {
		out = append(out, ',')
	}
	k, _ := json.Marshal(key)
	out = append(append(append(out, k...), ':'), value...)
	return append(out, '}')
}

// gateResources makes resources/read wait for the first sync as a read
// tool does (a note the sync has not stored yet would be "not found").
func (f *FirstSync) gateResources(next mcpserver.ResourceHandlerFunc) mcpserver.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		f.waitRead(ctx)
		return next(ctx, req)
	}
}

// waitRead makes a read that is not a tool call (resources/list and
// resources/read) wait for the first sync as a read tool does.
func (f *FirstSync) waitRead(ctx context.Context) {
	if f != nil && !f.finished() {
		f.wait(ctx, false)
	}
}
