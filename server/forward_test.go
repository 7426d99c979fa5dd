package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/resources"
	"github.com/vaultgraph/vaultgraph/server"
	"github.com/vaultgraph/vaultgraph/tools"
	"github.com/vaultgraph/vaultgraph/vault"
)

// fakeOwners stands in for the vault's owning process: each connection a
// backend asks for is served by the read-write or read-only server on a
// pipe, as the owner serves its socket; kill ends every open one, as a
// SIGKILL of the owner would.
type fakeOwners struct {
	rw, ro *mcpserver.MCPServer

	mu    sync.Mutex
	conns []net.Conn
	asked []bool // readOnly of each connection made
}

func (o *fakeOwners) connect(readOnly bool) server.Connect {
	return func(ctx context.Context) (io.ReadWriteCloser, error) {
		srv := o.rw
		if readOnly {
			srv = o.ro
		}
		front, back := net.Pipe()
		o.mu.Lock()
		o.conns = append(o.conns, back)
		o.asked = append(o.asked, readOnly)
		o.mu.Unlock()
		go func() {
			_ = server.ServeStream(context.Background(), srv, back, back, "owner-"+time.Now().String(), quietLogger())
			_ = back.Close()
		}()
		return front, nil
	}
}

func (o *fakeOwners) kill() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range o.conns {
		_ = c.Close()
	}
	o.conns = nil
}

// forwardFront serves a Forward to owners over HTTP with the test tokens.
func forwardFront(t *testing.T, owners *fakeOwners) *httptest.Server {
	t.Helper()
	fwd, err := server.NewForward(t.Context(), server.ForwardOptions{Connect: owners.connect, Version: "test", Logger: quietLogger(), Canonical: resources.CanonicalURI})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fwd.Close)
	h, err := server.NewHTTPServer(fwd.Server(), server.HTTPOptions{Addr: "127.0.0.1:0", Tokens: tokens, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h.Handler())
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close(context.Background()) })
	if err := fwd.Ready(t.Context()); err != nil {
		t.Fatalf("ready: %v", err)
	}
	return ts
}

// ownersOf serves f's graph tools as the owner would: all for a read-write
// connection, the read tools only for a read-only one.
func ownersOf(t *testing.T, f *fixture) *fakeOwners {
	t.Helper()
	ro, err := tools.Select(f.tools, tools.Selection{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	return &fakeOwners{rw: f.mcp, ro: server.New(server.Options{Version: "test", Tools: ro, Logger: quietLogger()})}
}

// Issue 24: an HTTP front that does not own the store serves the owner's
// tools, as they are, to both protocol eras; a read-only token's calls go
// through a read-only connection and its writes are refused.
func TestForwardServesTheOwnersTools(t *testing.T) {
	f := newFixture(t)
	owners := ownersOf(t, f)
	ts := forwardFront(t, owners)
	direct, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens})

	for name, copts := range map[string][]client.ClientOption{"current protocol": nil, "legacy protocol": {legacyProtocol()}} {
		t.Run(name, func(t *testing.T) {
			c := httpClient(t, ts, writeToken, copts...)
			d := httpClient(t, direct, writeToken, copts...)
			listJSON := func(c *client.Client) string {
				res, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
				if err != nil {
					t.Fatal(err)
				}
				b, _ := json.Marshal(res.Tools)
				return string(b)
			}
			if got, want := listJSON(c), listJSON(d); got != want {
				t.Fatalf("tools/list through the front differs from the owner's:\n got %.400s\nwant %.400s", got, want)
			}
			_, got := callTool(t, c, "get_node", map[string]any{"id": "notes/GraphCore.md", "depth": 1})
			_, want := callTool(t, d, "get_node", map[string]any{"id": "notes/GraphCore.md", "depth": 1})
			if got != want {
				t.Fatalf("get_node through the front:\n got %.300s\nwant %.300s", got, want)
			}
			title := "Forwarded " + strings.Fields(name)[0]
			if res, text := callTool(t, c, "create_node", map[string]any{"title": title, "content": "x"}); res.IsError {
				t.Fatalf("create_node: %s", text)
			}
			if _, text := callTool(t, d, "get_node", map[string]any{"id": title + ".md"}); text == "null" {
				t.Fatal("a write through the front is not seen by the owner")
			}
			// An error result passes as it is.
			if res, text := callTool(t, c, "get_node", map[string]any{"id": ""}); !res.IsError || !strings.Contains(text, "INVALID_PARAMS") {
				t.Fatalf("get_node with an empty id: %v %s", res.IsError, text)
			}

			r := httpClient(t, ts, readToken, copts...)
			names := toolNames(t, r)
			if slices.Contains(names, "create_node") || !slices.Contains(names, "get_node") {
				t.Fatalf("tools for a read-only token: %v", names)
			}
			before := f.vaultFiles(t)
			if res, err := r.CallTool(t.Context(), callRequest("create_node", map[string]any{"title": "Sneaky", "content": "x"})); err == nil && !res.IsError {
				t.Fatal("a read-only token wrote through the front")
			}
			if after := f.vaultFiles(t); !slices.Equal(before, after) {
				t.Fatalf("files changed: %v -> %v", before, after)
			}
			if _, text := callTool(t, r, "get_node", map[string]any{"id": "notes/Node.md"}); text == "null" {
				t.Fatal("read-only get_node found nothing")
			}
		})
	}
	owners.mu.Lock()
	defer owners.mu.Unlock()
	if !slices.Contains(owners.asked, true) || owners.asked[0] {
		t.Fatalf("connections asked as read-only: %v; want the first read-write and a read-only one", owners.asked)
	}
}

// The owner's progress notifications reach the HTTP client under its own
// token, and a call the client gives up is cancelled at the owner.
func TestForwardCarriesProgressAndCancellation(t *testing.T) {
	opts := progressServer()
	cancelled := make(chan struct{})
	started := make(chan struct{})
	opts.Tools = append(opts.Tools, tools.Tool{
		Toolset: tools.ToolsetGraph,
		Tool:    mcp.NewTool("wait", mcp.WithReadOnlyHintAnnotation(true)),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(started)
			<-ctx.Done()
			close(cancelled)
			return nil, ctx.Err()
		},
	})
	srv := server.New(*opts)
	ts := forwardFront(t, &fakeOwners{rw: srv, ro: srv})

	c := httpClient(t, ts, writeToken)
	rec := recordNotifications(c)
	req := callRequest("slow", map[string]any{})
	req.Params.Meta = &mcp.Meta{ProgressToken: "p-forward"}
	if _, err := c.CallTool(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	// The last progress (3 of 3) may reach the handler after the answer.
	got := rec.wait(func(got []mcp.JSONRPCNotification) bool {
		return slices.ContainsFunc(got, func(n mcp.JSONRPCNotification) bool { return n.Params.AdditionalFields["progress"] == 3.0 })
	})
	if len(got) == 0 {
		t.Fatal("no progress notification reached the client")
	}
	for _, n := range got {
		if n.Method != string(mcp.MethodNotificationProgress) || n.Params.AdditionalFields["progressToken"] != "p-forward" {
			t.Fatalf("notification %s %v", n.Method, n.Params.AdditionalFields)
		}
	}
	if last := got[len(got)-1].Params.AdditionalFields; last["progress"] != 3.0 || last["total"] != 3.0 {
		t.Fatalf("last progress %v", last)
	}

	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, callRequest("wait", map[string]any{}))
		errc <- err
	}()
	<-started
	cancel()
	select {
	case <-cancelled:
	case <-time.After(time.Minute):
		t.Fatal("the owner's handler was not cancelled")
	}
	if err := <-errc; err == nil {
		t.Fatal("a cancelled call answered")
	}
}

// Issue 24: when the owner goes away (killed), a call it was serving is
// answered with an error saying so, and the next calls reach the next
// owner without the client doing anything.
func TestForwardCarriesOnWhenTheOwnerGoes(t *testing.T) {
	f := newFixture(t)
	owners := ownersOf(t, f)
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	block := mcp.NewTool("block", mcp.WithReadOnlyHintAnnotation(false))
	f.mcp.AddTool(block, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		<-release
		return mcp.NewToolResultText("late"), nil
	})
	defer close(release)
	ts := forwardFront(t, owners)
	for name, copts := range map[string][]client.ClientOption{"current protocol": nil, "legacy protocol": {legacyProtocol()}} {
		t.Run(name, func(t *testing.T) {
			c := httpClient(t, ts, writeToken, copts...)
			callTool(t, c, "get_node", map[string]any{"id": "notes/Node.md"})

			errc := make(chan error, 1)
			go func() {
				_, err := c.CallTool(t.Context(), callRequest("block", map[string]any{}))
				errc <- err
			}()
			<-started
			owners.kill()
			var err error
			select {
			case err = <-errc:
			case <-time.After(time.Minute):
				t.Fatal("the call the owner died serving was not answered")
			}
			if err == nil || !strings.Contains(err.Error(), "stopped before answering") {
				t.Fatalf("call in flight at the kill: %v", err)
			}
			for _, id := range []string{"notes/Node.md", "notes/Index.md"} {
				if _, text := callTool(t, c, "get_node", map[string]any{"id": id}); text == "null" {
					t.Fatalf("get_node %s after the kill found nothing", id)
				}
			}
			if res, text := callTool(t, c, "create_node", map[string]any{"title": "After " + name, "content": "x"}); res.IsError {
				t.Fatalf("create_node after the kill: %s", text)
			}
		})
	}
	if err := context.Cause(t.Context()); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

// A resource subscription through the front reaches the owner, whose
// notifications of the note's change (named in its canonical form) and
// of the list's come back to the subscribed session.
func TestForwardRelaysResourceSubscriptions(t *testing.T) {
	f := newFixture(t)
	changes := resources.NewChanges()
	mirror, err := vault.NewMirror(vault.Config{Root: f.vault, Project: project, Store: changes.Store(f.store), Logger: quietLogger(), NoProgress: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mirror.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	deps := resources.Deps{Project: project, Store: f.store, Files: mirror.Writer(), Logger: quietLogger(), Changes: changes}
	srv := server.New(server.Options{Version: "test", Logger: quietLogger(), Vault: deps})
	ts := forwardFront(t, &fakeOwners{rw: srv, ro: srv})

	got := make(chan mcp.JSONRPCNotification, 256)
	//lint:ignore SA1019 a 2025-11-25 session hears of its subscriptions on the GET stream; this tests it
	tr, err := transport.NewStreamableHTTP(ts.URL+server.MCPPath, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + writeToken}), transport.WithContinuousListening())
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, legacyProtocol())
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	initialize(t, c)
	c.OnNotification(func(n mcp.JSONRPCNotification) { got <- n })
	if c.GetServerCapabilities().Resources == nil || !c.GetServerCapabilities().Resources.Subscribe {
		t.Fatalf("the front does not offer subscriptions: %+v", c.GetServerCapabilities().Resources)
	}
	var req mcp.SubscribeRequest
	req.Params.URI = "vault://note/notes/Node" // another form of notes/node.md
	//lint:ignore SA1019 the session speaks 2025-11-25, which has resources/subscribe.
	if err := c.Subscribe(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	// Issue 43: the front keeps only subscriptions to notes the owner has.
	req.Params.URI = "vault://note/notes/nowhere.md"
	//lint:ignore SA1019 the session speaks 2025-11-25, which has resources/subscribe.
	if err := c.Subscribe(t.Context(), req); err == nil || !strings.Contains(err.Error(), "subscribe to a note that exists") {
		t.Errorf("a subscription to no note through the front: %v, want refused", err)
	}
	wait := func(method, uri string) {
		t.Helper()
		timeout := time.After(time.Minute)
		for {
			select {
			case n := <-got:
				if n.Method == method && (uri == "" || n.Params.AdditionalFields["uri"] == uri) {
					return
				}
			case <-timeout:
				t.Fatalf("no %s %s within a minute", method, uri)
			}
		}
	}
	writeNote := func(rel, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(f.vault, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := mirror.Sync(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	writeNote("notes/Node.md", "changed while subscribed")
	wait(string(mcp.MethodNotificationResourceUpdated), resources.URI("notes/node.md"))
	writeNote("notes/Brand New.md", "a note that was not there")
	wait(string(mcp.MethodNotificationResourcesListChanged), "")
}
