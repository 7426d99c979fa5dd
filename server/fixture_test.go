package server_test

import (
	"context"
	"io"
	"log/slog"
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
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/server"
	"github.com/vaultgraph/vaultgraph/tools"
	"github.com/vaultgraph/vaultgraph/tools/graph"
	"github.com/vaultgraph/vaultgraph/vault"
)

const project = "vault"

// Content sizes around the truncation limits.
var (
	exactPrimary  = strings.Repeat("é", core.PrimaryContentLimit)
	overPrimary   = exactPrimary + "x"
	exactList     = strings.Repeat("l", core.ListContentLimit)
	overList      = exactList + "x"
	exactNeighbor = strings.Repeat("n", core.NeighborContentLimit)
	overNeighbor  = exactNeighbor + "x"
)

// seedFiles is the vault every transport test starts from:
//
//	Index -> GraphCore -> StoreProvider -> Node ; big/* around the limits
var seedFiles = map[string]string{
	"notes/GraphCore.md":     "---\ntags: [architecture, core]\n---\nThe orchestration hub uses [[StoreProvider]].",
	"notes/StoreProvider.md": "---\ntags: [provider]\n---\nData persistence for [[Node]].",
	"notes/Node.md":          "---\ntags: [core]\n---\n",
	"notes/Index.md":         "Start at [[GraphCore]].",
	"big/exact-primary.md":   exactPrimary,
	"big/over-primary.md":    overPrimary,
	"big/list.md":            "[[exact-list]] [[over-list]]",
	"big/exact-list.md":      exactList,
	"big/over-list.md":       overList,
	"big/ctx.md":             "[[exact-neighbor]] [[over-neighbor]]",
	"big/exact-neighbor.md":  exactNeighbor,
	"big/over-neighbor.md":   overNeighbor,
}

// substringSearcher stands in for semantic search: notes whose ID contains
// the query, by ID.
type substringSearcher struct{ store *memstore.Store }

func (s substringSearcher) Search(ctx context.Context, query string, limit int) ([]core.ScoredID, error) {
	hashes, err := s.store.NoteHashes(ctx, project)
	if err != nil {
		return nil, err
	}
	var ids []string
	for id := range hashes {
		if strings.Contains(id, query) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var out []core.ScoredID
	for i, id := range ids {
		if i == limit {
			break
		}
		out = append(out, core.ScoredID{ID: id, Score: 1 / float64(i+1)})
	}
	return out, nil
}

type fixture struct {
	vault  string
	store  *memstore.Store
	mirror *vault.Mirror
	mcp    *mcpserver.MCPServer
	tools  []tools.Tool // every graph tool, before the selection

	changesMu sync.Mutex
	changes   []core.NoteChange // what the mirror told its change log
}

// actors returns who made each logged change, by path, and forgets them.
func (f *fixture) actors() map[string]core.Actor {
	f.changesMu.Lock()
	defer f.changesMu.Unlock()
	out := map[string]core.Actor{}
	for _, c := range f.changes {
		out[c.Path] = c.Actor
	}
	f.changes = nil
	return out
}

// newFixture builds the wired server: a temporary vault with seedFiles,
// mirrored by the vault package into memstore, the vault's writer for the
// write tools, the graph toolset selected through tools.Select.
func newFixture(t testing.TB) *fixture {
	t.Helper()
	return newFixtureWith(t, nil)
}

// newFixtureWith is newFixture with the graph service reading through
// wrap(store), to inject store failures.
func newFixtureWith(t testing.TB, wrap func(core.GraphReader) core.GraphReader) *fixture {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range seedFiles {
		full := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return fixtureOn(t, dir, wrap)
}

// fixtureOn is a fixture serving the vault at dir from a fresh memstore.
func fixtureOn(t testing.TB, dir string, wrap func(core.GraphReader) core.GraphReader) *fixture {
	t.Helper()
	store := memstore.New()
	t.Cleanup(func() { _ = store.Close(context.Background()) })
	f := &fixture{vault: dir, store: store}
	mirror, err := vault.NewMirror(vault.Config{Root: f.vault, Project: project, Store: store, Logger: quietLogger(), NoProgress: true,
		Changes: func(_ context.Context, cs []core.NoteChange) {
			f.changesMu.Lock()
			f.changes = append(f.changes, cs...)
			f.changesMu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mirror.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	f.mirror = mirror
	var reader core.GraphReader = store
	if wrap != nil {
		reader = wrap(store)
	}
	svc := core.NewGraphService(project, reader, mirror.Writer(),
		core.WithRandomSeed(1),
		core.WithSearcher(substringSearcher{store}))
	f.tools = graph.Tools(graph.NewDeps(svc, quietLogger()))
	selected, err := tools.Select(f.tools, tools.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	f.mcp = server.New(server.Options{Version: "test", Tools: selected, Logger: quietLogger()})
	return f
}

// vaultFiles lists the files under the fixture's vault.
func (f *fixture) vaultFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(f.vault, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(f.vault, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// httpServer serves f over streamable HTTP on an httptest server.
func httpServer(t testing.TB, f *fixture, opts server.HTTPOptions) (*httptest.Server, *server.HTTPServer) {
	t.Helper()
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.Logger == nil {
		opts.Logger = quietLogger()
	}
	h, err := server.NewHTTPServer(f.mcp, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h.Handler())
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close(context.Background()) })
	return ts, h
}

// httpClient connects an initialized mcp-go client to ts with token.
func httpClient(t testing.TB, ts *httptest.Server, token string, copts ...client.ClientOption) *client.Client {
	t.Helper()
	var opts []transport.StreamableHTTPCOption
	if token != "" {
		opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	}
	tr, err := transport.NewStreamableHTTP(ts.URL+server.MCPPath, opts...)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, copts...)
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	initialize(t, c)
	return c
}

func initRequest() mcp.InitializeRequest {
	var req mcp.InitializeRequest
	req.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	return req
}

func initialize(t testing.TB, c *client.Client) {
	t.Helper()
	if _, err := c.Initialize(t.Context(), initRequest()); err != nil {
		t.Fatalf("initialize: %v", err)
	}
}

func callRequest(name string, args any) mcp.CallToolRequest {
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	return req
}

// callTool calls name with args and returns the result's first text and
// whether it is an error result.
func callTool(t testing.TB, c *client.Client, name string, args any) (*mcp.CallToolResult, string) {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(t.Context(), req)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("call %s: no content", name)
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		t.Fatalf("call %s: content is %T", name, res.Content[0])
	}
	return res, tc.Text
}

func toolNames(t testing.TB, c *client.Client) []string {
	t.Helper()
	res, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// legacyProtocol keeps a client on the initialize handshake (protocol
// 2025-11-25), with sessions, as clients released before 2026-07-28 do.
func legacyProtocol() client.ClientOption {
	return client.WithProtocolVersion(mcp.ProtocolVersion20251125)
}

// notifications records what a client's notification handler receives.
// The client calls the handler on goroutines of its own, so a notification
// sent before a call's answer may reach it after the call returns: tests
// wait for what they expect (wait) instead of reading at once.
type notifications struct {
	mu      sync.Mutex
	got     []mcp.JSONRPCNotification
	arrived chan struct{} // signalled at each notification
}

func recordNotifications(c *client.Client) *notifications {
	r := &notifications{arrived: make(chan struct{}, 1)}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		r.mu.Lock()
		r.got = append(r.got, n)
		r.mu.Unlock()
		select {
		case r.arrived <- struct{}{}:
		default:
		}
	})
	return r
}

// all returns the notifications received so far.
func (r *notifications) all() []mcp.JSONRPCNotification {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// wait returns the notifications received once done accepts them, or
// after 30 s (bounded generously for a loaded machine) whatever came.
func (r *notifications) wait(done func([]mcp.JSONRPCNotification) bool) []mcp.JSONRPCNotification {
	deadline := time.After(30 * time.Second)
	for {
		if got := r.all(); done(got) {
			return got
		}
		select {
		case <-r.arrived:
		case <-deadline:
			return r.all()
		}
	}
}
