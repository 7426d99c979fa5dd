package server_test

import (
	"testing"

	"github.com/vaultgraph/vaultgraph/server"
)

// BenchmarkHTTPGetNode is one get_node call through the mcp-go client,
// streamable HTTP, bearer auth, the middleware and the graph service.
func BenchmarkHTTPGetNode(b *testing.B) {
	f := newFixture(b)
	ts, _ := httpServer(b, f, server.HTTPOptions{Tokens: tokens})
	c := httpClient(b, ts, writeToken)
	args := map[string]any{"id": "notes/graphcore.md", "depth": 1}
	b.ReportAllocs()
	for b.Loop() {
		if res, _ := callTool(b, c, "get_node", args); res.IsError {
			b.Fatal("error result")
		}
	}
}
