package server_test

import (
	"bufio"
	"fmt"
	"io"
	"testing"

	"github.com/vaultgraph/vaultgraph/server"
)

// rawClient speaks newline-delimited JSON-RPC to ServeStdio without an MCP
// client library, one call at a time.
type rawClient struct {
	w    io.Writer
	r    *bufio.Reader
	next int
}

func rawStdio(t testing.TB, f *fixture) *rawClient {
	t.Helper()
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- server.ServeStdio(t.Context(), f.mcp, serverIn, serverOut, quietLogger()) }()
	t.Cleanup(func() {
		_ = clientOut.Close()
		<-done
		_ = serverOut.Close()
	})
	c := &rawClient{w: clientOut, r: bufio.NewReaderSize(clientIn, 1<<20)}
	c.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	c.read(t)
	c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *rawClient) send(t testing.TB, line string) {
	t.Helper()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (c *rawClient) read(t testing.TB) []byte {
	t.Helper()
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// call sends tools/call and returns the answer's line.
func (c *rawClient) call(t testing.TB, tool, args string) []byte {
	t.Helper()
	c.next++
	c.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, c.next, tool, args))
	return c.read(t)
}
