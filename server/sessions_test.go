package server_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/server"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// postJSON posts one JSON-RPC message to ts's /mcp with an optional token
// and session.
func postJSON(t testing.TB, base, token, session, body string) *http.Response {
	t.Helper()
	return doMCP(t, http.MethodPost, base, token, session, body, nil)
}

func doMCP(t testing.TB, method, base, token, session, body string, header map[string]string) *http.Response {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, base+server.MCPPath, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func readAll(t testing.TB, resp *http.Response) []byte {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type rpcErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// rpcErrorOf decodes a JSON-RPC error response (a plain JSON body or one
// SSE event).
func rpcErrorOf(t testing.TB, body []byte) rpcErr {
	t.Helper()
	if i := strings.Index(string(body), "data: "); i >= 0 {
		body = []byte(strings.TrimSpace(strings.SplitN(string(body)[i+6:], "\n", 2)[0]))
	}
	var msg struct {
		Error *rpcErr `json:"error"`
	}
	if err := json.Unmarshal(body, &msg); err != nil || msg.Error == nil {
		t.Fatalf("not a JSON-RPC error: %s", body)
	}
	return *msg.Error
}

// openSession initializes a session with token and returns its ID.
func openSession(t testing.TB, base, token string) string {
	t.Helper()
	resp := postJSON(t, base, token, "", initBody)
	body := readAll(t, resp)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: status %d, session %q, body %s", resp.StatusCode, id, body)
	}
	return id
}

const listTools = `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`

// Issue 21: a session belongs to the token that opened it.
func TestHTTPSessionsAreBoundToTheirToken(t *testing.T) {
	f := newFixture(t)
	ts, h := httpServer(t, f, server.HTTPOptions{Tokens: tokens})
	mine := openSession(t, ts.URL, writeToken)

	for name, do := range map[string]func() *http.Response{
		"use":    func() *http.Response { return postJSON(t, ts.URL, readToken, mine, listTools) },
		"listen": func() *http.Response { return doMCP(t, http.MethodGet, ts.URL, readToken, mine, "", nil) },
		"delete": func() *http.Response { return doMCP(t, http.MethodDelete, ts.URL, readToken, mine, "", nil) },
	} {
		t.Run("another token cannot "+name+" it", func(t *testing.T) {
			resp := do()
			body := readAll(t, resp)
			if resp.StatusCode != http.StatusNotFound || rpcErrorOf(t, body).Code != server.CodeSessionNotFound {
				t.Fatalf("status %d, body %s", resp.StatusCode, body)
			}
		})
	}
	if resp := postJSON(t, ts.URL, writeToken, mine, listTools); resp.StatusCode != http.StatusOK {
		t.Fatalf("the owner lost its session: %d %s", resp.StatusCode, readAll(t, resp))
	} else {
		readAll(t, resp)
	}

	t.Run("a request without a session is refused", func(t *testing.T) {
		resp := postJSON(t, ts.URL, writeToken, "", listTools)
		body := readAll(t, resp)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(rpcErrorOf(t, body).Message, "initialize") {
			t.Fatalf("status %d, body %s", resp.StatusCode, body)
		}
	})
	t.Run("the owner ends it", func(t *testing.T) {
		if resp := doMCP(t, http.MethodDelete, ts.URL, writeToken, mine, "", nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("delete: %d %s", resp.StatusCode, readAll(t, resp))
		} else {
			readAll(t, resp)
		}
		if n := h.OpenSessions(); n != 0 {
			t.Fatalf("%d sessions open after DELETE", n)
		}
		resp := postJSON(t, ts.URL, writeToken, mine, listTools)
		if body := readAll(t, resp); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("a deleted session answered: %d %s", resp.StatusCode, body)
		}
	})
}

// Issue 21: a cap per token and for the server, each with a clear error.
func TestHTTPSessionLimits(t *testing.T) {
	f := newFixture(t)
	three := []server.Token{{Value: "t1"}, {Value: "t2"}, {Value: "t3", ReadOnly: true}}
	ts, h := httpServer(t, f, server.HTTPOptions{Tokens: three, MaxSessionsPerToken: 2, MaxSessions: 3})

	openSession(t, ts.URL, "t1")
	first := openSession(t, ts.URL, "t1")
	resp := postJSON(t, ts.URL, "t1", "", initBody)
	body := readAll(t, resp)
	if e := rpcErrorOf(t, body); resp.StatusCode != http.StatusTooManyRequests || e.Code != server.CodeTooManySessions ||
		!strings.Contains(e.Message, "this token has reached its limit of 2 open sessions") || !strings.Contains(e.Message, "DELETE") {
		t.Fatalf("over the token's limit: status %d, body %s", resp.StatusCode, body)
	}
	openSession(t, ts.URL, "t2") // another token still may
	resp = postJSON(t, ts.URL, "t3", "", initBody)
	body = readAll(t, resp)
	if e := rpcErrorOf(t, body); resp.StatusCode != http.StatusServiceUnavailable || e.Code != server.CodeTooManySessions ||
		!strings.Contains(e.Message, "the server has reached its limit of 3 open sessions") {
		t.Fatalf("over the server's limit: status %d, body %s", resp.StatusCode, body)
	}
	if n := h.OpenSessions(); n != 3 {
		t.Fatalf("%d sessions open, want 3", n)
	}
	// Ending a session makes room.
	readAll(t, doMCP(t, http.MethodDelete, ts.URL, "t1", first, "", nil))
	openSession(t, ts.URL, "t3")
}

// Issue 43: one client (a token from one IP address) cannot take all of
// a shared token's sessions: a second address of the same token still
// opens sessions when the first has reached its cap; the token's cap
// still holds over both.
func TestHTTPSessionsPerClient(t *testing.T) {
	f := newFixture(t)
	ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens, MaxSessionsPerToken: 4, MaxSessionsPerClient: 2})
	from := func(ip string) func() *http.Response {
		c := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext}}
		t.Cleanup(c.CloseIdleConnections)
		return func() *http.Response {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+server.MCPPath, strings.NewReader(initBody))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+writeToken)
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			return resp
		}
	}
	one, two, three := from("127.0.0.1"), from("127.0.0.2"), from("127.0.0.3")
	expect := func(who string, init func() *http.Response, status int, msg string) {
		t.Helper()
		resp := init()
		body := readAll(t, resp)
		if resp.StatusCode != status {
			t.Fatalf("%s: status %d, want %d; body %s", who, resp.StatusCode, status, body)
		}
		if msg != "" {
			if e := rpcErrorOf(t, body); e.Code != server.CodeTooManySessions || !strings.Contains(e.Message, msg) {
				t.Fatalf("%s: %s, want code %d and %q", who, body, server.CodeTooManySessions, msg)
			}
		}
	}
	expect("first client, 1st", one, http.StatusOK, "")
	expect("first client, 2nd", one, http.StatusOK, "")
	expect("first client, 3rd", one, http.StatusTooManyRequests, "limit of 2 open sessions from one address")
	expect("second client, 1st", two, http.StatusOK, "")
	expect("second client, 2nd", two, http.StatusOK, "")
	expect("third client over the token's cap", three, http.StatusTooManyRequests, "this token has reached its limit of 4 open sessions")
}

// Issue 21: a session nobody uses is closed after the idle timeout, and
// its memory with it.
func TestHTTPIdleSessionsExpire(t *testing.T) {
	f := newFixture(t)
	ts, h := httpServer(t, f, server.HTTPOptions{Tokens: tokens, SessionIdleTimeout: time.Second})
	id := openSession(t, ts.URL, writeToken)
	// The sweeper runs every second (mcp-go's least interval); the wait
	// is for that event, bounded generously for a loaded machine.
	deadline := time.Now().Add(60 * time.Second)
	for h.OpenSessions() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions still open a minute after a 1 s idle timeout", h.OpenSessions())
		}
		time.Sleep(50 * time.Millisecond)
	}
	resp := postJSON(t, ts.URL, writeToken, id, listTools)
	body := readAll(t, resp)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(rpcErrorOf(t, body).Message, "initialize again") {
		t.Fatalf("expired session: status %d, body %s", resp.StatusCode, body)
	}
}

// sessionSoakCount is how many sessions TestHTTPSessionsKeepMemoryFlat
// opens: a brief run in `make test`, 50,000 in `make soak`
// (VAULTGRAPH_SESSION_SOAK).
func sessionSoakCount(t *testing.T) int {
	if v := os.Getenv("VAULTGRAPH_SESSION_SOAK"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("VAULTGRAPH_SESSION_SOAK=%q is not a positive count", v)
		}
		return n
	}
	return 5000
}

// heapAfterGC is the live heap, measured after two collections.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// Issue 21: each initialize used to keep ~10 KB for good (20,000 → heap 5
// → 220 MiB). Sessions abandoned by their clients, sessions ended by
// DELETE, and initializes over the limit all leave the heap where it was.
func TestHTTPSessionsKeepMemoryFlat(t *testing.T) {
	n := sessionSoakCount(t)
	const limit = 500
	f := newFixture(t)
	ts, h := httpServer(t, f, server.HTTPOptions{Tokens: tokens, MaxSessions: limit, MaxSessionsPerToken: limit, MaxSessionsPerClient: limit, SessionIdleTimeout: time.Second})
	client := ts.Client()
	post := func(session, body string) (*http.Response, []byte) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+server.MCPPath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+writeToken)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, b
	}
	del := func(session string) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodDelete, ts.URL+server.MCPPath, nil)
		req.Header.Set("Authorization", "Bearer "+writeToken)
		req.Header.Set("Mcp-Session-Id", session)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	waitClosed := func() {
		deadline := time.Now().Add(60 * time.Second)
		for h.OpenSessions() != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%d sessions still open a minute after a 1 s idle timeout", h.OpenSessions())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	// Warm up (connections, pools, the first sweep), then measure.
	for range 200 {
		resp, _ := post("", initBody)
		del(resp.Header.Get("Mcp-Session-Id"))
	}
	before := heapAfterGC()
	start := time.Now()
	opened, refused, deleted := 0, 0, 0
	var peak uint64
	for i := range n {
		resp, body := post("", initBody)
		switch resp.StatusCode {
		case http.StatusOK:
			opened++
			id := resp.Header.Get("Mcp-Session-Id")
			if i%2 == 0 { // half end their session, half abandon it
				post(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				del(id)
				deleted++
			}
		case http.StatusTooManyRequests, http.StatusServiceUnavailable:
			refused++
			// The abandoned ones fill the limit until the sweeper runs.
			time.Sleep(10 * time.Millisecond)
		default:
			t.Fatalf("initialize %d: status %d, body %s", i, resp.StatusCode, body)
		}
		if i%1000 == 999 {
			peak = max(peak, heapAfterGC())
		}
		if open := h.OpenSessions(); open > limit {
			t.Fatalf("%d sessions open, over the limit of %d", open, limit)
		}
	}
	waitClosed()
	after := heapAfterGC()
	t.Logf("%d initializes in %s: %d opened (%d ended by DELETE, %d abandoned and expired), %d refused at the limit of %d; heap after GC %.1f MiB before, %.1f MiB peak, %.1f MiB after",
		n, time.Since(start).Round(time.Millisecond), opened, deleted, opened-deleted, refused, limit,
		mib(before), mib(peak), mib(after))
	// Flat: what is left does not grow with n. 8 MiB is far below the
	// ~50 MiB that 5,000 leaked sessions kept before, and above GC noise.
	if after > before+8<<20 {
		t.Fatalf("heap grew from %.1f to %.1f MiB over %d sessions", mib(before), mib(after), n)
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// Issue 21: duplicate keys are refused before the message is handled.
func TestHTTPRefusesDuplicateKeys(t *testing.T) {
	f := newFixture(t)
	ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens})
	id := openSession(t, ts.URL, writeToken)
	cases := []struct {
		name, body string
		code       int
		has        string
	}{
		{"tool name twice", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_node","name":"delete_node","arguments":{"id":"notes/node.md"}}}`, -32602, `"params.name"`},
		{"argument twice", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_node","arguments":{"id":"a.md","id":"notes/node.md"}}}`, -32602, `"params.arguments.id"`},
		{"method twice", `{"jsonrpc":"2.0","id":7,"method":"tools/list","method":"tools/call","params":{}}`, -32600, `"method"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := postJSON(t, ts.URL, writeToken, id, c.body)
			body := readAll(t, resp)
			e := rpcErrorOf(t, body)
			if resp.StatusCode != http.StatusBadRequest || e.Code != c.code || !strings.Contains(e.Message, c.has) || !strings.Contains(string(body), `"id":7`) {
				t.Fatalf("status %d, body %s", resp.StatusCode, body)
			}
		})
	}
	// Nothing was deleted.
	if _, err := os.Stat(f.vault + "/notes/Node.md"); err != nil {
		t.Fatalf("the note is gone: %v", err)
	}
}

// Issue 21: Origin, when present, must be allowed (MCP transport spec);
// a reverse proxy's Host can be allowed.
func TestHTTPOriginAndHostChecks(t *testing.T) {
	f := newFixture(t)
	ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens, AllowedOrigins: []string{"https://app.example.com"}, AllowedHosts: []string{"vault.example.com"}})
	port := ts.URL[strings.LastIndex(ts.URL, ":")+1:]
	cases := []struct {
		name   string
		header map[string]string
		status int
	}{
		{"no Origin (not a browser)", nil, http.StatusOK},
		{"an Origin on localhost", map[string]string{"Origin": "http://localhost:6274"}, http.StatusOK},
		{"an Origin on 127.0.0.1", map[string]string{"Origin": "http://127.0.0.1:" + port}, http.StatusOK},
		{"an allowed Origin", map[string]string{"Origin": "https://app.example.com"}, http.StatusOK},
		{"another site's Origin", map[string]string{"Origin": "https://evil.example.com"}, http.StatusForbidden},
		{"an opaque Origin", map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"a rebound Host", map[string]string{"Host": "evil.example.com:" + port}, http.StatusForbidden},
		{"an allowed Host (a reverse proxy)", map[string]string{"Host": "vault.example.com"}, http.StatusOK},
		{"an allowed Host with a port", map[string]string{"Host": "vault.example.com:443"}, http.StatusOK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+server.MCPPath, strings.NewReader(initBody))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+writeToken)
			for k, v := range c.header {
				if k == "Host" {
					req.Host = v
					continue
				}
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body := readAll(t, resp)
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, c.status, body)
			}
			if c.status == http.StatusForbidden && rpcErrorOf(t, body).Code != server.CodeForbidden {
				t.Fatalf("body %s", body)
			}
		})
	}
}

// Without http.allowed_hosts a reverse proxy that keeps its public Host is
// refused, with a message that names the setting.
func TestHTTPProxyHostNeedsAllowedHosts(t *testing.T) {
	f := newFixture(t)
	ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+server.MCPPath, strings.NewReader(initBody))
	req.Host = "vault.example.com"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+writeToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, resp)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(rpcErrorOf(t, body).Message, "http.allowed_hosts") {
		t.Fatalf("a proxy's Host without allowed_hosts: status %d, body %s", resp.StatusCode, body)
	}
}

// Issue 21: duplicate keys over stdio, answered for the request's id.
func TestStdioRefusesDuplicateKeys(t *testing.T) {
	f := newFixture(t)
	c := rawStdio(t, f)
	c.send(t, `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"get_node","name":"delete_node","arguments":{"id":"notes/node.md"}}}`)
	line := c.read(t)
	if e := rpcErrorOf(t, line); e.Code != -32602 || !strings.Contains(e.Message, `"params.name"`) || !strings.Contains(string(line), `"id":41`) {
		t.Fatalf("got %s", line)
	}
	c.send(t, `{"jsonrpc":"2.0","id":42,"id":43,"method":"tools/list"}`)
	if line := c.read(t); rpcErrorOf(t, line).Code != -32600 || !strings.Contains(string(line), `"id":null`) {
		t.Fatalf("got %s", line)
	}
	// The server goes on, and nothing was deleted.
	if line := c.call(t, "get_node", `{"id":"notes/node.md"}`); !strings.Contains(string(line), `"notes/node.md"`) {
		t.Fatalf("get_node after the refusals: %s", line)
	}
}

// Issue 21: the shim ends its session when its client goes away.
func TestShimEndsItsSessionOnExit(t *testing.T) {
	f := newFixture(t)
	ts, h := httpServer(t, f, server.HTTPOptions{Tokens: tokens})
	clientIn, shimOut := io.Pipe()
	shimIn, clientOut := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- server.RunShim(t.Context(), ts.URL+server.MCPPath, writeToken, shimIn, shimOut, quietLogger())
	}()
	go func() { _, _ = io.Copy(io.Discard, clientIn) }()
	send := func(line string) {
		if _, err := io.WriteString(clientOut, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(initBody)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(listTools)
	deadline := time.Now().Add(60 * time.Second)
	for h.OpenSessions() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions open, want the shim's", h.OpenSessions())
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = clientOut.Close() // the client exits: the shim's stdin ends
	if err := <-done; err != nil {
		t.Fatalf("RunShim: %v", err)
	}
	if n := h.OpenSessions(); n != 0 {
		t.Fatalf("%d sessions open after the shim exited", n)
	}
}
