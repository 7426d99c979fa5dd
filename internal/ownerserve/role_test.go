package ownerserve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/owner"
	"github.com/vaultgraph/vaultgraph/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// fakeApp is an App with two tools: whoami (the app's name) and slow
// (answers once release is closed, saying started first).
type fakeApp struct {
	name     string
	started  chan struct{} // one value per slow call begun
	release  chan struct{}
	closed   atomic.Bool
	synced   atomic.Int64
	syncTail string // appended to SyncNow's answer
}

func newFakeApp(name string) *fakeApp {
	return &fakeApp{name: name, started: make(chan struct{}, 16), release: make(chan struct{})}
}

func (a *fakeApp) Server(sel tools.Selection) (*mcpserver.MCPServer, error) {
	if len(sel.Toolsets) > 0 && sel.Toolsets[0] == "unknown" {
		return nil, errors.New(`unknown toolset "unknown"`)
	}
	whoami := tools.Tool{Toolset: "test", Tool: mcp.NewTool("whoami", mcp.WithReadOnlyHintAnnotation(true)),
		Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(a.name), nil
		}}
	slow := tools.Tool{Toolset: "test", Tool: mcp.NewTool("slow", mcp.WithReadOnlyHintAnnotation(false)),
		Handler: func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a.started <- struct{}{}
			select {
			case <-a.release:
			case <-ctx.Done():
			}
			return mcp.NewToolResultText("done by " + a.name), nil
		}}
	list := []tools.Tool{whoami, slow}
	if sel.ReadOnly {
		list = list[:1]
	}
	return server.New(server.Options{Version: "test", Tools: list, Logger: slog.New(slog.DiscardHandler)}), nil
}

func (a *fakeApp) Selection() tools.Selection { return tools.Selection{} }
func (a *fakeApp) Serves(string) bool         { return true }
func (a *fakeApp) Run(ctx context.Context)    { <-ctx.Done() }
func (a *fakeApp) SyncNow() string {
	a.synced.Add(1)
	return "synced by " + a.name + a.syncTail
}
func (a *fakeApp) Close(context.Context) { a.closed.Store(true) }

// stateDir is a state folder as vaultgraph makes them (0700).
func stateDir(t *testing.T) string { return filepath.Join(t.TempDir(), "state") }

// startOwner makes app the owner of dir.
func startOwner(t *testing.T, dir string, app *fakeApp, opts Options) *Role[*fakeApp] {
	t.Helper()
	lock, err := owner.TryLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	opts.Lock, opts.Version = lock, "test"
	r, err := Start(t.Context(), app, opts)
	if err != nil {
		lock.Release()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		closeOnce(app.release)
		r.Shutdown(context.Background())
	})
	return r
}

func closeOnce(c chan struct{}) {
	select {
	case <-c:
	default:
		close(c)
	}
}

// die is the owner killed: its socket and connections closed at once,
// nothing handed over, its lock released (as the kernel does for a
// process killed by SIGKILL).
func (r *Role[A]) die() {
	r.mu.Lock()
	_ = r.ln.Close()
	for c := range r.conns {
		_ = c.Close()
	}
	r.mu.Unlock()
	r.opts.Lock.Release()
}

// lines is a JSON-RPC client of raw lines.
type lines struct {
	t *testing.T
	w io.Writer
	r *bufio.Reader
}

func (l *lines) send(msg string) {
	l.t.Helper()
	if _, err := io.WriteString(l.w, msg+"\n"); err != nil {
		l.t.Fatalf("send %s: %v", msg, err)
	}
}

// recv reads one message; nil at the end of the stream.
func (l *lines) recv() map[string]any {
	l.t.Helper()
	line, err := l.r.ReadBytes('\n')
	if errors.Is(err, io.EOF) && len(line) == 0 {
		return nil
	}
	if err != nil {
		l.t.Fatalf("receive: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		l.t.Fatalf("receive %q: %v", line, err)
	}
	return m
}

// answer reads messages until the answer to id.
func (l *lines) answer(id int) map[string]any {
	l.t.Helper()
	for {
		m := l.recv()
		if m == nil {
			l.t.Fatalf("the stream ended before the answer to %d", id)
		}
		if v, ok := m["id"].(float64); ok && int(v) == id {
			return m
		}
	}
}

func (l *lines) initialize() {
	l.t.Helper()
	l.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	if m := l.answer(1); m["error"] != nil {
		l.t.Fatalf("initialize: %v", m)
	}
	l.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func (l *lines) call(id int, tool string) {
	l.t.Helper()
	l.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, id, tool))
}

// text is a tool answer's text, or the error's code.
func text(m map[string]any) string {
	if e, ok := m["error"].(map[string]any); ok {
		return fmt.Sprintf("error %v", e["code"])
	}
	res, _ := m["result"].(map[string]any)
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		return fmt.Sprintf("%v", m)
	}
	c, _ := content[0].(map[string]any)
	return fmt.Sprint(c["text"])
}

// An owner that stops on purpose stops reading, answers what it read,
// says it hands over, and only then closes, closes the app and releases
// the lock.
func TestHandOverAnswersWhatItReadThenSaysSo(t *testing.T) {
	dir := stateDir(t)
	app := newFakeApp("A")
	own := startOwner(t, dir, app, Options{})
	conn, w, err := Client{Dir: dir, Version: "test"}.Dial(owner.KindMCP, tools.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if w.PID != os.Getpid() || w.Protocol != owner.Protocol {
		t.Fatalf("welcome %+v", w)
	}
	c := &lines{t: t, w: conn, r: bufio.NewReader(conn)}
	c.initialize()
	c.call(2, "slow")
	<-app.started
	stopped := make(chan struct{})
	go func() { own.Shutdown(context.Background()); close(stopped) }()
	close(app.release)
	if got := text(c.answer(2)); got != "done by A" {
		t.Fatalf("the call in flight at the hand-over: %s", got)
	}
	if m := c.recv(); m == nil || m["method"] != server.MethodHandover {
		t.Fatalf("after the last answer: %v, want %s", m, server.MethodHandover)
	}
	if m := c.recv(); m != nil {
		t.Fatalf("after the hand-over: %v, want the end", m)
	}
	<-stopped
	if !app.closed.Load() {
		t.Fatal("the app is not closed after Shutdown")
	}
	l, err := owner.TryLock(dir)
	if err != nil {
		t.Fatalf("the lock after Shutdown: %v", err)
	}
	l.Release()
}

// A relay whose owner dies goes on with the next one: its process takes
// the lock and serves the client's next calls itself; the call the dead
// owner had is answered -32003 (it may have run), not sent again.
func TestTakeOverWhenTheOwnerDies(t *testing.T) {
	dir := stateDir(t)
	a := newFakeApp("A")
	ownerA := startOwner(t, dir, a, Options{})
	b := newFakeApp("B")
	defer closeOnce(b.release)
	conn := &Connector[*fakeApp]{Client: Client{Dir: dir, Version: "test"},
		Become: func(ctx context.Context, lock *owner.Lock) (*Role[*fakeApp], error) {
			return Start(ctx, b, Options{Lock: lock, Version: "test"})
		}}
	defer conn.Stop(context.Background())
	tookOver := make(chan struct{})
	conn.OnOwn(func(*Role[*fakeApp]) { close(tookOver) })

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	relayed := make(chan error, 1)
	go func() {
		relayed <- server.RunRelay(ctx, conn.ConnectAs(tools.Selection{}), inR, outW, slog.New(slog.DiscardHandler))
	}()
	c := &lines{t: t, w: inW, r: bufio.NewReader(outR)}
	c.initialize()
	c.call(2, "whoami")
	if got := text(c.answer(2)); got != "A" {
		t.Fatalf("whoami through the relay: %s, want A", got)
	}
	c.call(3, "slow")
	<-a.started
	ownerA.die()
	if got := text(c.answer(3)); got != "error -32003" {
		t.Fatalf("the call the dead owner had: %s, want error -32003", got)
	}
	c.call(4, "whoami")
	if got := text(c.answer(4)); got != "B" {
		t.Fatalf("whoami after the owner died: %s, want B (this process took over)", got)
	}
	<-tookOver
	if conn.Owned() == nil || conn.Owned().App() != b {
		t.Fatal("the connector does not own the store after the takeover")
	}
	_ = inW.Close()
	if err := <-relayed; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("relay: %v", err)
	}
}

// A process that finds the lock held reaches the owner through its
// socket (a sync, an MCP session), and the owner's refusal of a bad tool
// selection is final.
func TestConnectorReachesTheOwner(t *testing.T) {
	dir := stateDir(t)
	a := newFakeApp("A")
	startOwner(t, dir, a, Options{})
	conn := &Connector[*fakeApp]{Client: Client{Dir: dir, Version: "test"},
		Become: func(context.Context, *owner.Lock) (*Role[*fakeApp], error) {
			t.Error("the connector took the lock of a running owner")
			return nil, errors.New("no")
		}}
	own, _, w, err := conn.Find(t.Context(), owner.KindSync, tools.Selection{})
	if err != nil || own != nil || w.Detail != "synced by A" || a.synced.Load() != 1 {
		t.Fatalf("sync through the owner: %v, %+v, own %v, %d syncs", err, w, own, a.synced.Load())
	}
	_, rw, _, err := conn.Find(t.Context(), owner.KindMCP, tools.Selection{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := server.CallOver(t.Context(), rw, "whoami", json.RawMessage(`{}`), nil)
	if err != nil || text(map[string]any{"result": toMap(res)}) != "A" {
		t.Fatalf("whoami: %v, %v", res, err)
	}
	_, _, _, err = conn.Find(t.Context(), owner.KindMCP, tools.Selection{Toolsets: []string{"unknown"}})
	var refused *RefusedError
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "unknown toolset") {
		t.Fatalf("a bad selection: %v, want the owner's refusal", err)
	}
}

func toMap(v any) map[string]any {
	b, _ := json.Marshal(v)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// Issue 43: the Hello line is bounded in size (owner.MaxLine: a longer
// one is refused after at most that much is read; it took the owner from
// 34 to 813 MiB with 400 MiB) and in time (a silent connection is closed
// after HelloTimeout and no longer counted).
func TestHelloIsBoundedInSizeAndTime(t *testing.T) {
	dir := stateDir(t)
	own := startOwner(t, dir, newFakeApp("A"), Options{HelloTimeout: time.Second})

	// 64 MiB without a newline, in 1 MiB writes.
	c, err := owner.Dial(dir, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = 'x'
	}
	wrote := make(chan int, 1)
	go func() {
		n := 0
		for n < 64 && c.SetWriteDeadline(time.Now().Add(30*time.Second)) == nil {
			if _, err := c.Write(chunk); err != nil {
				break
			}
			n++
		}
		wrote <- n
	}()
	var w owner.Welcome
	if err := owner.ReadLine(bufio.NewReader(c), &w); err != nil || !strings.Contains(w.Error, "longer than 64 KiB") {
		t.Fatalf("the owner's answer to a 64 MiB Hello: %+v, %v", w, err)
	}
	n := <-wrote
	runtime.ReadMemStats(&after)
	grew := int64(after.TotalAlloc) - int64(before.TotalAlloc)
	t.Logf("a Hello without end: refused after %d whole 1 MiB writes, %d KiB allocated by the whole test process meanwhile", n, grew>>10)
	if n >= 64 {
		t.Fatalf("the owner read all 64 MiB of the Hello")
	}
	if grew > 8<<20 {
		t.Fatalf("%d MiB allocated while a Hello was refused, want under 8", grew>>20)
	}

	// A connection that says nothing is closed after HelloTimeout.
	silent, err := owner.Dial(dir, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	_ = silent.SetReadDeadline(time.Now().Add(30 * time.Second))
	if n, err := silent.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("a silent connection: read %d, %v; want the owner to close it", n, err)
	}
	own.mu.Lock()
	open := len(own.conns)
	own.mu.Unlock()
	if open != 0 {
		t.Fatalf("%d connections still counted after the silent one was closed", open)
	}
	// The owner still serves.
	if _, w, err := (Client{Dir: dir}).Dial(owner.KindSync, tools.Selection{}); err != nil || w.Detail != "synced by A" {
		t.Fatalf("after the refusals: %+v, %v", w, err)
	}
}

// The uid check is exercised with a real process of another user in
// foreign_test.go; here: a process of this user that speaks another
// protocol, or an unknown kind, is refused with a Welcome saying why.
func TestOwnerRefusesAnotherProtocol(t *testing.T) {
	dir := stateDir(t)
	startOwner(t, dir, newFakeApp("A"), Options{})
	for _, tc := range []struct {
		hello owner.Hello
		want  string
	}{
		{owner.Hello{Protocol: "vaultgraph-owner/0", Kind: owner.KindMCP}, "speaks vaultgraph-owner/1, not vaultgraph-owner/0"},
		{owner.Hello{Protocol: owner.Protocol, Kind: "dance"}, `unknown connection kind "dance"`},
	} {
		hello, want := tc.hello, tc.want
		c, err := owner.Dial(dir, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if err := owner.WriteLine(c, hello); err != nil {
			t.Fatal(err)
		}
		var w owner.Welcome
		if err := owner.ReadLine(bufio.NewReader(c), &w); err != nil || !strings.Contains(w.Error, want) {
			t.Fatalf("Hello %+v: %+v, %v; want %q", hello, w, err, want)
		}
		_ = c.Close()
	}
}

// A sync's answer too long for a Welcome line (a long error) is cut so
// the Welcome still fits: the caller reads it rather than retrying.
func TestALongSyncAnswerStillFitsItsWelcome(t *testing.T) {
	dir := stateDir(t)
	app := newFakeApp("A")
	app.syncTail = ": " + strings.Repeat("é", owner.MaxLine)
	startOwner(t, dir, app, Options{})
	_, w, err := Client{Dir: dir}.Dial(owner.KindSync, tools.Selection{})
	if err != nil || !strings.HasPrefix(w.Detail, "synced by A: é") || !strings.HasSuffix(w.Detail, "…") || len(w.Detail) > maxWelcomeText+len("…") {
		t.Fatalf("a long sync answer: %d bytes, %v", len(w.Detail), err)
	}
}
