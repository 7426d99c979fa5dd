package graph_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/tools/graph"
)

// BenchmarkToolCall measures one call through a tool handler: the
// wrapper every tool shares (tools.Handle: decode, run, shape), over a
// three-note embedded store, so the wrapper's part is not lost in a
// store's work. "refused" is a call the schema refuses.
func BenchmarkToolCall(b *testing.B) {
	store := memstore.New()
	ctx := context.Background()
	if err := store.UpsertNotes(ctx, project, []core.Note{
		note("notes/a.md", "A", "alpha", []string{"x"}, "notes/b.md"),
		note("notes/b.md", "B", "beta", nil),
	}); err != nil {
		b.Fatal(err)
	}
	svc := core.NewGraphService(project, store, nil)
	handlers := map[string]func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error){}
	for _, tool := range graph.Tools(graph.NewDeps(svc, nil)) {
		handlers[tool.Tool.Name] = tool.Handler
	}
	for _, c := range []struct{ name, tool, args string }{
		{"get_node", "get_node", `{"id":"notes/a.md"}`},
		{"get_node/depth1", "get_node", `{"id":"notes/a.md","depth":1}`},
		{"refused", "get_node", `{"id":"notes/a.md","depth":7}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			h := handlers[c.tool]
			var req mcp.CallToolRequest
			req.Params.RawArguments = json.RawMessage(c.args)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
