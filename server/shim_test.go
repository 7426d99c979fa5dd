package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/vaultgraph/vaultgraph/server"
)

// shimClient runs RunShim on in-process pipes, relaying to serverURL, and
// returns a started (not initialized) client speaking to it over stdio.
func shimClient(t *testing.T, serverURL, token string, copts ...client.ClientOption) (*client.Client, *recorder) {
	t.Helper()
	clientIn, shimOut := io.Pipe()
	shimIn, clientOut := io.Pipe()
	out := &recorder{w: shimOut}
	done := make(chan error, 1)
	go func() { done <- server.RunShim(t.Context(), serverURL, token, shimIn, out, quietLogger()) }()
	c := client.NewClient(transport.NewIO(clientIn, clientOut, nil), copts...)
	t.Cleanup(func() {
		_ = c.Close()
		_ = clientOut.Close()
		if err := <-done; err != nil {
			t.Errorf("RunShim: %v", err)
		}
		_ = shimOut.Close()
	})
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	return c, out
}

func TestShimRelaysTheGraphToolset(t *testing.T) {
	for name, copts := range map[string][]client.ClientOption{
		"current protocol": nil,
		"legacy protocol":  {legacyProtocol()},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens})
			c, out := shimClient(t, ts.URL+server.MCPPath, writeToken, copts...)
			initialize(t, c)
			if n := len(toolNames(t, c)); n != 10 {
				t.Fatalf("tools/list through the shim: %d tools", n)
			}
			walkGraphTools(t, c, f)

			sc := bufio.NewScanner(bytes.NewReader(out.bytes()))
			sc.Buffer(nil, 16<<20)
			for sc.Scan() {
				var msg struct {
					JSONRPC string `json:"jsonrpc"`
				}
				if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg.JSONRPC != "2.0" {
					t.Fatalf("shim stdout line is not JSON-RPC: %.200q", sc.Text())
				}
			}
		})
	}
}

func TestShimPassesTheReadOnlyTokenThrough(t *testing.T) {
	f := newFixture(t)
	ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens})
	c, _ := shimClient(t, ts.URL+server.MCPPath, readToken)
	initialize(t, c)
	before := f.vaultFiles(t)
	if res, err := c.CallTool(t.Context(), callRequest("create_node", map[string]any{"title": "x", "content": "y"})); err == nil && !res.IsError {
		t.Fatal("create_node went through with a read-only token")
	}
	if after := f.vaultFiles(t); !slices.Equal(before, after) {
		t.Fatalf("files changed: %v -> %v", before, after)
	}
}

func TestShimRefusesABadURL(t *testing.T) {
	for _, u := range []string{"", "localhost:8765/mcp", "ftp://host/mcp", "http:///mcp", "::"} {
		err := server.RunShim(t.Context(), u, "", strings.NewReader(""), io.Discard, quietLogger())
		if err == nil || !strings.Contains(err.Error(), "invalid server URL") {
			t.Errorf("%q: err = %v", u, err)
		}
	}
}

func TestShimExplainsAWrongToken(t *testing.T) {
	f := newFixture(t)
	ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens})
	c, _ := shimClient(t, ts.URL+server.MCPPath, "wrong", legacyProtocol())
	_, err := c.Initialize(t.Context(), initRequest())
	if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "token") {
		t.Fatalf("err = %v", err)
	}
}

func TestShimExplainsAServerThatIsDown(t *testing.T) {
	addr := freeAddr(t)
	c, _ := shimClient(t, "http://"+addr+server.MCPPath, writeToken, legacyProtocol())
	_, err := c.Initialize(t.Context(), initRequest())
	if err == nil || !strings.Contains(err.Error(), "cannot reach the vaultgraph server") {
		t.Fatalf("err = %v", err)
	}
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	var lc net.ListenConfig
	ln, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// restartable serves a handler on a fixed address, and can stop and start
// again there, as a restarted vaultgraph would. It counts initialize
// requests and can forget the sessions it issued, as a server that keeps
// sessions in memory does after a restart.
type restartable struct {
	t        *testing.T
	addr     string
	handler  http.Handler
	srv      *http.Server
	inits    atomic.Int64
	mu       sync.Mutex
	sessions map[string]bool
	strict   bool // answer 404 to a session this instance did not issue
}

func (r *restartable) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	if bytes.Contains(body, []byte(`"method":"initialize"`)) {
		r.inits.Add(1)
		r.handler.ServeHTTP(&sessionRecorder{ResponseWriter: w, r: r}, req)
		return
	}
	if id := req.Header.Get("Mcp-Session-Id"); id != "" {
		r.mu.Lock()
		known := r.sessions[id]
		strict := r.strict
		r.mu.Unlock()
		if strict && !known {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
	}
	r.handler.ServeHTTP(w, req)
}

type sessionRecorder struct {
	http.ResponseWriter
	r *restartable
}

func (s *sessionRecorder) WriteHeader(code int) {
	if id := s.Header().Get("Mcp-Session-Id"); id != "" {
		s.r.mu.Lock()
		s.r.sessions[id] = true
		s.r.mu.Unlock()
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *sessionRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *restartable) start() {
	r.t.Helper()
	var lc net.ListenConfig
	ln, err := lc.Listen(r.t.Context(), "tcp", r.addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	r.mu.Lock()
	r.sessions = map[string]bool{} // a new process knows no session
	r.mu.Unlock()
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 5e9}
	go func() { _ = r.srv.Serve(ln) }()
}

func (r *restartable) stop() {
	_ = r.srv.Shutdown(context.Background())
}

func TestShimReconnectsWhenTheServerRestarts(t *testing.T) {
	f := newFixture(t)
	h, err := server.NewHTTPServer(f.mcp, server.HTTPOptions{Addr: "127.0.0.1:0", Tokens: tokens, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	r := &restartable{t: t, addr: "127.0.0.1:0", handler: h.Handler(), strict: true}
	r.start()
	t.Cleanup(r.stop)

	c, _ := shimClient(t, "http://"+r.addr+server.MCPPath, writeToken, legacyProtocol())
	initialize(t, c)
	ok := func() {
		t.Helper()
		if res, text := callTool(t, c, "get_node", map[string]any{"id": "notes/node.md"}); res.IsError || text == "null" {
			t.Fatalf("get_node: %s", text)
		}
	}
	ok()
	if r.inits.Load() != 1 {
		t.Fatalf("%d initializes", r.inits.Load())
	}

	t.Run("a restart the shim did not see: the lost session is re-opened", func(t *testing.T) {
		r.stop()
		r.start() // forgets the session
		ok()
		if r.inits.Load() != 2 {
			t.Fatalf("%d initializes, want a transparent re-initialize", r.inits.Load())
		}
	})

	t.Run("down, then back: a clear error, then a new session", func(t *testing.T) {
		r.stop()
		_, err := c.CallTool(t.Context(), callRequest("get_node", map[string]any{"id": "notes/node.md"}))
		if err == nil || !strings.Contains(err.Error(), "cannot reach the vaultgraph server") {
			t.Fatalf("err = %v", err)
		}
		r.start()
		before := r.inits.Load()
		ok()
		if r.inits.Load() != before+1 {
			t.Fatalf("no re-initialize after the server came back")
		}
	})
}

func TestShimAnswersAParseErrorForALineThatIsNotJSON(t *testing.T) {
	f := newFixture(t)
	ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens})
	var out bytes.Buffer
	in := strings.NewReader("this is not json\n")
	if err := server.RunShim(t.Context(), ts.URL+server.MCPPath, writeToken, in, &out, quietLogger()); err != nil {
		t.Fatal(err)
	}
	var msg struct {
		ID    any `json:"id"`
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out.Bytes(), &msg); err != nil || msg.Error.Code != -32700 || msg.ID != nil {
		t.Fatalf("out = %q, err = %v", out.String(), err)
	}
}

func TestShimExplainsAWrongPath(t *testing.T) {
	f := newFixture(t)
	ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens})
	c, _ := shimClient(t, ts.URL+"/wrong", writeToken, legacyProtocol())
	_, err := c.Initialize(t.Context(), initRequest())
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "/mcp endpoint") {
		t.Fatalf("err = %v", err)
	}
}
