package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

func TestNewLogsEachToolCallWithFixedKeys(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	ok := tools.Tool{Toolset: tools.ToolsetGraph, Tool: mcp.NewTool("ok", mcp.WithReadOnlyHintAnnotation(true)),
		Handler: func(_ context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("secret note text"), nil
		}}
	boom := tools.Tool{Toolset: tools.ToolsetGraph, Tool: mcp.NewTool("boom", mcp.WithReadOnlyHintAnnotation(true)),
		Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("kaput") }}
	srv := server.New(server.Options{Version: "1.2.3", Tools: []tools.Tool{ok, boom}, Logger: logger})

	c, err := client.NewInProcessClient(srv)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	res, err := c.Initialize(t.Context(), initRequest())
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerInfo.Name != "vaultgraph" || res.ServerInfo.Version != "1.2.3" {
		t.Fatalf("server info %+v", res.ServerInfo)
	}
	if _, err := c.CallTool(t.Context(), callRequest("ok", map[string]any{"q": "secret argument"})); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(t.Context(), callRequest("boom", nil)); err == nil {
		t.Fatal("a panicking handler must fail the call")
	}

	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		if m["msg"] == "tool call" {
			lines = append(lines, m)
		}
	}
	if len(lines) != 2 {
		t.Fatalf("%d tool call lines:\n%s", len(lines), logs.String())
	}
	first, second := lines[0], lines[1]
	if first["tool"] != "ok" || first["toolset"] != "graph" || first["outcome"] != "ok" || first["level"] != "INFO" {
		t.Errorf("ok line: %v", first)
	}
	if _, has := first["duration_s"].(float64); !has {
		t.Errorf("no duration_s: %v", first)
	}
	if second["outcome"] != "error" || second["level"] != "ERROR" || !strings.Contains(second["err"].(string), "kaput") {
		t.Errorf("panic line: %v", second)
	}
	if strings.Contains(logs.String(), "secret") {
		t.Error("arguments or results reached the log")
	}
}
