package e2e

import (
	"context"
	"net"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/mark3labs/mcp-go/client"
)

// shimClient spawns "vaultgraph shim --url url" with token under an mcp-go
// stdio client (not initialized).
func shimClient(t *testing.T, url, token string) (*client.Client, *stdioProcess) {
	t.Helper()
	env := baseEnv(t)
	if token != "" {
		env = append(env, "VAULTGRAPH_TOKEN="+token)
	}
	return stdioClient(t, env, []string{"shim", "--url", url})
}

// tryInitialize is initialize returning the error.
func tryInitialize(t *testing.T, c *client.Client) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
	defer cancel()
	_, err := c.Initialize(ctx, initRequest())
	return err
}

// TestShim drives an MCP client → "vaultgraph shim" (stdio) → "vaultgraph
// serve --http" → store, on both stores: the tool list and calls pass
// through (the client's notifications/initialized too, or the session
// would not serve), writes land in the vault, and the shim reconnects on
// its own after the server restarts.
func TestShim(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st store) {
		vault := copyVault(t, nil)
		h := startHTTP(t, st, vault, "127.0.0.1:0")
		for name, copts := range map[string][]client.ClientOption{"current protocol": nil, "legacy protocol": {legacyProtocol()}} {
			t.Run(name, func(t *testing.T) {
				env := append(baseEnv(t), "VAULTGRAPH_TOKEN="+rwToken)
				c, _ := stdioClient(t, env, []string{"shim", "--url", h.url()}, copts...)
				res := initialize(t, c)
				if res.ServerInfo.Name != "vaultgraph" {
					t.Errorf("server name through the shim: %q", res.ServerInfo.Name)
				}
				if got := toolNames(listTools(t, c)); !slices.Equal(got, defaultTools()) {
					t.Errorf("tools/list through the shim:\n got %v\nwant %v", got, defaultTools())
				}
				if n := getNode(t, c, map[string]any{"id": "home.md"}); n == nil || n.Title != "Home" {
					t.Errorf("get_node through the shim: %+v", n)
				}
				wantCode(t, c, invalidParams, "get_node", map[string]any{"id": "home.md", "depth": 9})
			})
		}

		t.Run("write and reconnect after a restart", func(t *testing.T) {
			c, sp := shimClient(t, h.url(), rwToken)
			initialize(t, c)
			var n node
			callTool(t, c, "create_node", map[string]any{"title": "Via Shim", "content": "through the shim"}).decode(t, &n)
			if n.ID != "via shim.md" || !strings.Contains(readFile(t, vault, "Via Shim.md"), "through the shim") {
				t.Fatalf("create_node through the shim: %+v", n)
			}

			// Restart the server on the same address.
			h.signal(t, syscall.SIGTERM)
			if code, ok := h.exitCode(readyTimeout); !ok || code != 0 {
				t.Fatalf("server exit %v %d", ok, code)
			}
			// Meanwhile a call fails with the shim's "unreachable" error,
			// and the shim keeps running.
			if _, err := tryCall(t, c, "get_node", map[string]any{"id": "home.md"}); err == nil || !strings.Contains(err.Error(), "cannot reach") {
				t.Errorf("call while the server is down: %v, want the shim's \"cannot reach\" error", err)
			}
			h2 := startHTTP(t, st, vault, h.addr)
			if n := getNode(t, c, map[string]any{"id": "via shim.md"}); n == nil || n.Title != "Via Shim" {
				t.Errorf("get_node after the restart: %+v; shim stderr:\n%s", n, sp.stderr.String())
			}
			h = h2
		})
	})
}

// TestShimErrors: a URL that is not http(s) is a usage error at start; a
// refused token and a server that is down are JSON-RPC errors that say so,
// and the shim keeps running (it exits 0 at the end of stdin).
func TestShimErrors(t *testing.T) {
	t.Parallel()
	t.Run("bad URL", func(t *testing.T) {
		for _, u := range []string{"ftp://127.0.0.1/mcp", "127.0.0.1:8080", "http://"} {
			code, out, errOut := runProc(t, baseEnv(t), "shim", "--url", u)
			if code != 2 || out != "" || !strings.Contains(errOut, "not an http or https URL") {
				t.Errorf("shim --url %q: exit %d, stdout %q, stderr %q", u, code, out, errOut)
			}
		}
		code, _, errOut := runProc(t, baseEnv(t), "shim")
		if code != 2 || !strings.Contains(errOut, "--url is required") {
			t.Errorf("shim without --url: exit %d, stderr %q", code, errOut)
		}
	})
	t.Run("refused token", func(t *testing.T) {
		t.Parallel()
		h := startHTTP(t, embeddedStore(t), copyVault(t, nil), "127.0.0.1:0")
		for _, token := range []string{"", "wrong"} {
			c, _ := shimClient(t, h.url(), token)
			if err := tryInitialize(t, c); err == nil || !strings.Contains(err.Error(), "refused the bearer token") {
				t.Errorf("initialize with token %q: %v", token, err)
			}
		}
	})
	t.Run("server down", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close() // a port nobody listens on
		c, _ := shimClient(t, "http://"+addr+"/mcp", rwToken)
		if err := tryInitialize(t, c); err == nil || !strings.Contains(err.Error(), "cannot reach the vaultgraph server") {
			t.Errorf("initialize with the server down: %v", err)
		}
	})
}
