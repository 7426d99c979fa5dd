package e2e

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/vaultgraph/vaultgraph/internal/testwait"
)

// rawPost posts body to url with token ("" for none) and returns the
// status and body.
func rawPost(t *testing.T, url, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// createNoteCall is a JSON-RPC tools/call of create_node with the title,
// valid without a session under the current protocol.
func createNoteCall(title string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_node","arguments":{"title":"` + title + `","content":"x"}}}`
}

// TestHTTPAuth: a request without a token or with a wrong one gets 401
// with a JSON-RPC error saying so, and no data; a read-only token lists and calls the read tools only, and a
// write it tries is refused without touching the vault or the store.
func TestHTTPAuth(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st store) {
		vault := copyVault(t, nil)
		h := startHTTP(t, st, vault, "127.0.0.1:0")
		before := listFiles(t, vault)

		for name, token := range map[string]string{"no token": "", "wrong token": "rw-tok-not", "token prefix": "rw"} {
			t.Run(name, func(t *testing.T) {
				for _, body := range []string{
					`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
					`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_node","arguments":{"id":"home.md"}}}`,
					createNoteCall("Unauthorized Write"),
				} {
					code, resp := rawPost(t, h.url(), token, body)
					// A JSON-RPC error saying what is wrong (issue 23),
					// and nothing of the server's.
					if code != http.StatusUnauthorized || !strings.Contains(resp, `"code":-32001`) || !strings.Contains(resp, "Bearer") ||
						strings.Contains(resp, rwToken) || strings.Contains(resp, roToken) || strings.Contains(resp, "home") {
						t.Errorf("POST %.60s: %d %q, want 401 with a JSON-RPC error", body, code, resp)
					}
				}
				// The mcp-go client fails at initialize.
				c := httpClient(t, h.url(), token)
				ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
				defer cancel()
				if _, err := c.Initialize(ctx, initRequest()); err == nil {
					t.Error("initialize succeeded")
				}
			})
		}

		t.Run("read-only token", func(t *testing.T) {
			c := httpClient(t, h.url(), roToken)
			initialize(t, c)
			var want []string
			for _, name := range defaultTools() {
				if !slices.Contains(writeTools, name) {
					want = append(want, name)
				}
			}
			if got := toolNames(listTools(t, c)); !slices.Equal(got, want) {
				t.Errorf("tools/list for a read-only token:\n got %v\nwant %v", got, want)
			}
			if n := getNode(t, c, map[string]any{"id": "home.md"}); n == nil || n.Title != "Home" {
				t.Errorf("read-only get_node: %+v", n)
			}
			for _, call := range []struct {
				name string
				args map[string]any
			}{
				{"create_node", map[string]any{"title": "RO Write", "content": "x"}},
				{"update_node", map[string]any{"id": "home.md", "content": "overwritten"}},
				{"delete_node", map[string]any{"id": "home.md"}},
				{"add_knowledge_base", map[string]any{"name": "ro", "description": "", "subfolder": "ro", "organization_rules": ""}},
				{"create_note", map[string]any{"knowledge_base_name": "ro", "note_path": "a.md", "note_content": "x"}},
			} {
				r, err := tryCall(t, c, call.name, call.args)
				if err == nil && !r.isError {
					t.Errorf("read-only %s succeeded: %.200s", call.name, r.text)
				}
			}
			if after := listFiles(t, vault); !slices.Equal(after, before) {
				t.Errorf("refused writes changed the vault:\n%v\nwas\n%v", after, before)
			}
			if n := getNode(t, c, map[string]any{"id": "home.md"}); n == nil || strings.Contains(n.Content, "overwritten") {
				t.Errorf("home.md after refused writes: %+v", n)
			}
			wantText(t, c, "null", "get_node", map[string]any{"id": "ro write.md"})
		})

		t.Run("healthz needs no token", func(t *testing.T) {
			resp, err := http.Get("http://" + h.addr + "/healthz")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(b)) != `{"status":"ok"}` {
				t.Errorf("/healthz: %d %q", resp.StatusCode, b)
			}
		})
	})
}

// TestHTTPRefusesNoTokenOffLoopback: serve --http on an address other
// hosts can reach, with no token configured, is a configuration error
// (exit 2) reported before the store is opened or the vault synced, with
// a message that says why; on loopback it serves.
func TestHTTPRefusesNoTokenOffLoopback(t *testing.T) {
	t.Parallel()
	st := embeddedStore(t)
	vault := copyVault(t, nil)
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		args := append([]string{"serve", "--vault", vault, "--http", addr}, st.args...)
		code, out, errOut := runProc(t, processEnv(t, st), args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "reachable from other machines") || strings.Contains(errOut, "sync") {
			t.Errorf("serve --http %s without tokens: exit %d, stdout %q, stderr:\n%s", addr, code, out, errOut)
		}
	}
	// Loopback without a token is allowed: the token-less client gets in.
	args := append([]string{"serve", "--vault", vault, "--http", "127.0.0.1:0"}, st.args...)
	p := startProc(t, processEnv(t, st), nil, args...)
	addr, _ := p.waitLog(t, "serving MCP over HTTP", readyTimeout)["addr"].(string)
	c := httpClient(t, "http://"+addr+"/mcp", "")
	initialize(t, c)
	if n := getNode(t, c, map[string]any{"id": "home.md"}); n == nil {
		t.Error("get_node on a token-less loopback server is null")
	}
}

// TestGracefulShutdown: SIGTERM and SIGINT stop serve (HTTP and stdio)
// with exit status 0; over HTTP, every request the server accepted before
// the signal is answered in full.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run("http "+sig.String(), func(t *testing.T) {
			t.Parallel()
			st := embeddedStore(t)
			h := startHTTP(t, st, copyVault(t, nil), "127.0.0.1:0")
			c := httpClient(t, h.url(), rwToken)
			initialize(t, c)

			// Clients keep calling while the signal arrives: each call
			// either completes with a correct answer or is refused at the
			// connection, never cut off half-way.
			var (
				wg                  sync.WaitGroup
				mu                  sync.Mutex
				answered, refused   int
				broken              []error
				firstAnswer         = make(chan struct{})
				firstAnswerOnce     sync.Once
				stopCalling         = make(chan struct{})
				stopCallingOnce     sync.Once
				closeStopCalling    = func() { stopCallingOnce.Do(func() { close(stopCalling) }) }
				markFirstAnswerSeen = func() { firstAnswerOnce.Do(func() { close(firstAnswer) }) }
			)
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						select {
						case <-stopCalling:
							return
						default:
						}
						r, err := tryCall(t, c, "get_hubs", map[string]any{"metric": "pagerank", "limit": 50})
						mu.Lock()
						switch {
						case err == nil && !r.isError && strings.HasPrefix(r.text, "[{"):
							answered++
							markFirstAnswerSeen()
						case err != nil && isRefused(err):
							// never accepted: refused at the socket, or sent on a
							// kept-alive connection the shutdown had closed
							refused++
						case err != nil && h.exited():
							refused++ // the connection to an exited server
						default:
							broken = append(broken, errors.Join(err, errors.New(r.text)))
						}
						mu.Unlock()
						if err != nil {
							return
						}
					}
				}()
			}
			testwait.Recv(t, firstAnswer, "the first answer")
			h.signal(t, sig)
			code, ok := h.exitCode(readyTimeout)
			closeStopCalling()
			wg.Wait()
			if !ok || code != 0 {
				t.Fatalf("after %v: exited %v with %d; stderr:\n%s", sig, ok, code, h.stderr.String())
			}
			if _, ok := findLog(h.stderr.String(), "HTTP server stopped"); !ok {
				t.Error("no \"HTTP server stopped\" log line")
			}
			t.Logf("%v: %d calls answered, %d refused after the shutdown", sig, answered, refused)
			for _, err := range broken {
				t.Errorf("a call was cut off: %v", err)
			}
		})
		t.Run("stdio "+sig.String(), func(t *testing.T) {
			t.Parallel()
			st := embeddedStore(t)
			args := append([]string{"serve", "--vault", copyVault(t, nil)}, st.args...)
			// An *os.File stdin is handed to the process as is: with an
			// io.Pipe, exec's copying goroutine would keep Wait from
			// returning after the process exits.
			in, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			p := startProc(t, processEnv(t, st), in, args...)
			in.Close()
			// The handler of SIGINT and SIGTERM is installed before anything
			// is logged (main), so the sync's log line is past it.
			p.waitLog(t, "vault: sync done", readyTimeout)
			p.signal(t, sig)
			if code, ok := p.exitCode(readyTimeout); !ok || code != 0 {
				t.Fatalf("after %v: exited %v with %d; stderr:\n%s", sig, ok, code, p.stderr.String())
			}
		})
	}
}

// isRefused reports whether err is a client's failure to reach a server
// that no longer listens.
func isRefused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "connection reset") ||
		strings.Contains(err.Error(), "server closed idle connection") ||
		// The request went out on a kept-alive connection the server closed
		// as idle at the same moment: no answer header came back, so the
		// server never took it (it waits for those it took).
		(strings.Contains(err.Error(), "failed to send request") && strings.HasSuffix(err.Error(), ": EOF"))
}

// TestHTTPMetricsAndReadiness: serve --http with --metrics-addr exposes
// Prometheus metrics on an address of its own (tool calls by outcome,
// sessions), and /readyz says ready once the first sync is done (issue 23).
func TestHTTPMetricsAndReadiness(t *testing.T) {
	t.Parallel()
	st := embeddedStore(t)
	h := startHTTP(t, st, copyVault(t, nil), "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0")
	metricsAddr, _ := h.waitLog(t, "serving metrics", readyTimeout)["addr"].(string)
	if code, body := httpGet(t, "http://"+h.addr+"/readyz"); code != http.StatusOK || !strings.Contains(body, "ready") {
		t.Errorf("/readyz: %d %s", code, body)
	}
	// A client of protocol 2025-11-25 holds a session; later ones have none.
	c := httpClient(t, h.url(), rwToken, legacyProtocol())
	initialize(t, c)
	getNode(t, c, map[string]any{"id": "home.md"})
	wantCode(t, c, invalidParams, "get_node", map[string]any{"id": "home.md", "depht": 1})
	code, body := httpGet(t, "http://"+metricsAddr+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{
		`vaultgraph_tool_calls_total{outcome="ok",tool="get_node"} 1`,
		`vaultgraph_tool_calls_total{outcome="error_result",tool="get_node"} 1`,
		`vaultgraph_tool_errors_total{code="INVALID_PARAMS",tool="get_node"} 1`,
		`vaultgraph_tool_call_duration_seconds_count{tool="get_node"} 2`,
		`vaultgraph_http_sessions_open 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", body)
	}
	// The MCP port does not serve them.
	if code, _ := httpGet(t, "http://"+h.addr+"/metrics"); code == http.StatusOK {
		t.Error("/metrics is served on the MCP address")
	}
}
