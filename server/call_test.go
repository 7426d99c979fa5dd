package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/server"
)

func TestCallInProcess(t *testing.T) {
	f := newFixture(t)
	res, err := server.Call(t.Context(), f.mcp, "get_node", json.RawMessage(`{"id":"notes/node.md"}`))
	if err != nil || res.IsError || !strings.HasPrefix(server.ResultText(res), `{"id":"notes/node.md"`) {
		t.Fatalf("get_node: %v, %v", res, err)
	}
	res, err = server.Call(t.Context(), f.mcp, "get_hubs", nil)
	if err != nil || res.IsError {
		t.Fatalf("get_hubs without arguments: %v, %v", res, err)
	}
	res, err = server.Call(t.Context(), f.mcp, "get_node", json.RawMessage(`{}`))
	if err != nil || !res.IsError || !strings.Contains(server.ResultText(res), "INVALID_PARAMS") {
		t.Fatalf("bad arguments must be a tool error: %v, %v", res, err)
	}
	if _, err := server.Call(t.Context(), f.mcp, "no_such_tool", nil); err == nil {
		t.Fatal("unknown tool must fail")
	}
	if _, err := server.Call(t.Context(), f.mcp, "get_node", json.RawMessage(`{`)); err == nil {
		t.Fatal("invalid JSON must fail")
	}
}
