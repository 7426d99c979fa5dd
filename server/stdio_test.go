package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/vaultgraph/vaultgraph/server"
)

// recorder keeps a copy of everything written through it.
type recorder struct {
	mu  sync.Mutex
	buf bytes.Buffer
	w   io.Writer
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.buf.Write(p)
	r.mu.Unlock()
	return r.w.Write(p)
}

func (r *recorder) bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Clone(r.buf.Bytes())
}

// stdioClient serves f on in-process pipes with ServeStdio and returns a
// connected client and a recording of the server's stdout.
func stdioClient(t testing.TB, f *fixture, opts ...client.ClientOption) (*client.Client, *recorder) {
	t.Helper()
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	out := &recorder{w: serverOut}
	done := make(chan error, 1)
	ctx := t.Context()
	go func() { done <- server.ServeStdio(ctx, f.mcp, serverIn, out, quietLogger()) }()
	c := client.NewClient(transport.NewIO(clientIn, clientOut, nil), opts...)
	t.Cleanup(func() {
		_ = c.Close()
		_ = clientOut.Close()
		if err := <-done; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
		_ = serverOut.Close()
	})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	initialize(t, c)
	return c, out
}

// mcp-go keeps one stdio session per process: these tests do not run in
// parallel with each other.

func TestStdioServesTheGraphToolset(t *testing.T) {
	f := newFixture(t)
	c, out := stdioClient(t, f)
	want := []string{"create_node", "delete_node", "find_path", "get_hubs", "get_neighbors", "get_node", "random_node", "search", "search_by_tags", "update_node"}
	if got := toolNames(t, c); !slices.Equal(got, want) {
		t.Fatalf("tools/list = %v", got)
	}
	walkGraphTools(t, c, f)

	// stdout carries JSON-RPC messages and nothing else.
	sc := bufio.NewScanner(bytes.NewReader(out.bytes()))
	sc.Buffer(nil, 16<<20)
	lines := 0
	for sc.Scan() {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Fatalf("stdout line is not JSON-RPC: %.200q", sc.Text())
		}
		lines++
	}
	if lines < 10 {
		t.Fatalf("only %d lines on stdout", lines)
	}
}

func TestStdioWithALegacyClient(t *testing.T) {
	f := newFixture(t)
	c, _ := stdioClient(t, f, legacyProtocol())
	if _, text := callTool(t, c, "get_node", map[string]any{"id": "notes/node.md"}); text == "null" {
		t.Fatal("node not found over the legacy protocol")
	}
}

func TestStdioReturnsWhenTheContextEnds(t *testing.T) {
	f := newFixture(t)
	in, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- server.ServeStdio(ctx, f.mcp, in, io.Discard, quietLogger()) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
	case <-time.After(time.Minute): // an event; the bound is for a loaded machine
		t.Fatal("ServeStdio did not return after cancel")
	}
}
