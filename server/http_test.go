package server_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/server"
	"github.com/vaultgraph/vaultgraph/tools/graph"
)

const (
	writeToken = "s3cret-write-token"
	readToken  = "s3cret-read-token"
)

var tokens = []server.Token{{Value: writeToken}, {Value: readToken, ReadOnly: true}}

func TestHTTPServesTheGraphToolset(t *testing.T) {
	f := newFixture(t)
	ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens})
	walkGraphTools(t, httpClient(t, ts, writeToken), f)
}

func TestHTTPRefusesMissingAndWrongTokensWithoutData(t *testing.T) {
	f := newFixture(t)
	ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	for name, auth := range map[string]string{"no token": "", "wrong token": "Bearer nope", "wrong scheme": "Basic " + writeToken, "token prefix": "Bearer " + writeToken[:5]} {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+server.MCPPath, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Mcp-Session-Id") != "" {
				t.Fatalf("status %d, body %q", resp.StatusCode, got)
			}
			// Issue 23: a JSON-RPC error saying what is wrong, and
			// nothing about the server or its tokens.
			e := rpcErrorOf(t, got)
			if e.Code != server.CodeUnauthorized || !strings.Contains(e.Message, "Bearer") || strings.Contains(string(got), writeToken) || strings.Contains(string(got), readToken) {
				t.Fatalf("body %s", got)
			}
		})
	}

	t.Run("the mcp-go client reports it", func(t *testing.T) {
		c, err := client.NewStreamableHttpClient(ts.URL+server.MCPPath, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer nope"}))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		var req = initRequest()
		if _, err := c.Initialize(t.Context(), req); err == nil {
			t.Fatal("initialize succeeded with a wrong token")
		}
	})
}

func TestHTTPReadOnlyTokenGetsReadOnlyTools(t *testing.T) {
	t.Run("current protocol", func(t *testing.T) { testReadOnlyToken(t) })
	t.Run("legacy protocol", func(t *testing.T) { testReadOnlyToken(t, legacyProtocol()) })
}

func testReadOnlyToken(t *testing.T, copts ...client.ClientOption) {
	f := newFixture(t)
	ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens})
	c := httpClient(t, ts, readToken, copts...)
	names := toolNames(t, c)
	for _, w := range []string{"create_node", "update_node", "delete_node"} {
		if slices.Contains(names, w) {
			t.Errorf("tools/list shows %s to a read-only token", w)
		}
	}
	if !slices.Contains(names, "get_node") {
		t.Fatalf("read tools missing: %v", names)
	}

	before := f.vaultFiles(t)
	var req = callRequest("create_node", map[string]any{"title": "Sneaky", "content": "x"})
	if res, err := c.CallTool(t.Context(), req); err == nil && !res.IsError {
		t.Fatal("a read-only token created a node")
	}
	req = callRequest("delete_node", map[string]any{"id": "notes/node.md"})
	if res, err := c.CallTool(t.Context(), req); err == nil && !res.IsError {
		t.Fatal("a read-only token deleted a node")
	}
	if after := f.vaultFiles(t); !slices.Equal(before, after) {
		t.Fatalf("files changed: %v -> %v", before, after)
	}
	if _, text := callTool(t, c, "get_node", map[string]any{"id": "notes/node.md"}); text == "null" {
		t.Fatal("the refused delete went through")
	}

	// The write token, on the same server, still writes.
	w := httpClient(t, ts, writeToken, copts...)
	if res, _ := callTool(t, w, "create_node", map[string]any{"title": "Allowed", "content": "x"}); res.IsError {
		t.Fatal("write token refused")
	}
}

func TestHTTPRefusesToServeOffLoopbackWithoutToken(t *testing.T) {
	f := newFixture(t)
	for _, addr := range []string{"0.0.0.0:8765", ":8765", "[::]:8765", "192.168.1.10:8765", "example.com:80"} {
		if _, err := server.NewHTTPServer(f.mcp, server.HTTPOptions{Addr: addr}); !errors.Is(err, server.ErrNoTokenOffLoopback) {
			t.Errorf("%s without token: err = %v", addr, err)
		}
		if _, err := server.NewHTTPServer(f.mcp, server.HTTPOptions{Addr: addr, Tokens: tokens}); err != nil {
			t.Errorf("%s with token: %v", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:8765", "localhost:8765", "[::1]:8765"} {
		if _, err := server.NewHTTPServer(f.mcp, server.HTTPOptions{Addr: addr}); err != nil {
			t.Errorf("%s without token: %v", addr, err)
		}
	}
	if _, err := server.NewHTTPServer(f.mcp, server.HTTPOptions{Addr: "0.0.0.0:1", Tokens: []server.Token{{Value: " "}}}); err == nil {
		t.Error("an empty token was accepted")
	}
}

func TestHTTPLoopbackWithoutTokenNeedsNoAuth(t *testing.T) {
	f := newFixture(t)
	ts, _ := httpServer(t, f, server.HTTPOptions{})
	if _, text := callTool(t, httpClient(t, ts, ""), "get_node", map[string]any{"id": "notes/node.md"}); text == "null" {
		t.Fatal("no answer without auth on loopback")
	}
}

// Issue 23: /healthz says the process is alive, whatever the store does;
// /readyz says whether it can serve.
func TestHTTPHealthzAndReadyz(t *testing.T) {
	f := newFixture(t)
	ready := true
	ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens, Ready: func(context.Context) error {
		if ready {
			return nil
		}
		return errors.New("neo4j down at 10.0.0.1")
	}})
	get := func(path string) (int, string) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, ts.URL+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(server.HealthPath); code != http.StatusOK || !strings.Contains(body, `"ok"`) {
		t.Fatalf("healthz: %d %s", code, body)
	}
	if code, body := get(server.ReadyPath); code != http.StatusOK || !strings.Contains(body, `"ready"`) {
		t.Fatalf("readyz: %d %s", code, body)
	}
	ready = false
	if code, body := get(server.HealthPath); code != http.StatusOK {
		t.Fatalf("healthz while not ready: %d %s", code, body)
	}
	if code, body := get(server.ReadyPath); code != http.StatusServiceUnavailable || strings.Contains(body, "10.0.0.1") {
		t.Fatalf("readyz while not ready: %d %s", code, body)
	}
}

// Before Attach (serve's first sync), /healthz answers and /mcp says the
// server is starting.
func TestHTTPBeforeAttachAnswersStarting(t *testing.T) {
	h, err := server.NewHTTPServer(nil, server.HTTPOptions{Addr: "127.0.0.1:0", Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h.Handler())
	defer ts.Close()
	resp := postJSON(t, ts.URL, "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	body := readAll(t, resp)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || rpcErrorOf(t, body).Code != server.CodeStarting {
		t.Fatalf("status %d, body %s", resp.StatusCode, body)
	}
	if h.OpenSessions() != 0 {
		t.Fatalf("%d sessions open after a refused initialize", h.OpenSessions())
	}
	f := newFixture(t)
	h.Attach(f.mcp)
	defer h.Close(context.Background())
	resp = postJSON(t, ts.URL, "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if b := readAll(t, resp); resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("after Attach: status %d, body %s", resp.StatusCode, b)
	}
}

func TestHTTPCapsTheBody(t *testing.T) {
	f := newFixture(t)
	ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens, MaxBodyBytes: 1024})
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", 2048) + `"}}`
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+server.MCPPath, bytes.NewBufferString(big))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+writeToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, resp)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || rpcErrorOf(t, body).Code != -32600 {
		t.Fatalf("status %d, body %s", resp.StatusCode, body)
	}
}

func TestHTTPShutsDownWhenTheContextEnds(t *testing.T) {
	f := newFixture(t)
	h, err := server.NewHTTPServer(f.mcp, server.HTTPOptions{Addr: "127.0.0.1:0", Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- h.Serve(ctx, ln) }()

	c, err := client.NewStreamableHttpClient("http://" + ln.Addr().String() + server.MCPPath)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	initialize(t, c)

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(time.Minute): // an event; the bound is for a loaded machine
		t.Fatal("Serve did not return after cancel")
	}
	if conn, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		conn.Close()
		t.Fatal("still accepting connections")
	}
}

// downStore fails every hub query the way neo4jstore reports an
// unreachable database.
type downStore struct{ core.GraphReader }

func (downStore) Hubs(context.Context, string, core.HubMetric, int) ([]core.Hub, error) {
	return nil, fmt.Errorf("neo4jstore: hubs: %w", core.NewProviderError("hubs", errors.New("ConnectivityError: bolt://10.9.8.7:7687 unreachable")))
}

func TestHTTPProviderErrorIsReportedWithoutTheCause(t *testing.T) {
	f := newFixtureWith(t, func(r core.GraphReader) core.GraphReader { return downStore{r} })
	ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens})
	c := httpClient(t, ts, writeToken)
	res, text := callTool(t, c, "get_hubs", map[string]any{})
	if !res.IsError || errCode(t, text) != graph.CodeProviderError || strings.Contains(text, "10.9.8.7") || strings.Contains(text, "Connectivity") {
		t.Fatalf("got %s", text)
	}
	// The server stays up and answers what does not need the failing part.
	if res, _ := callTool(t, c, "get_node", map[string]any{"id": "notes/node.md"}); res.IsError {
		t.Fatal("server unusable after a provider error")
	}
}
