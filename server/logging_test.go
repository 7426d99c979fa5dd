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

// Every tool call is logged with the same keys: a read-only tool's
// answer at DEBUG, a changing tool's at INFO, a handler's failure at
// ERROR. At the default level (INFO) a read leaves no line.
func TestNewLogsEachToolCallWithFixedKeys(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelDebug, slog.LevelInfo} {
		t.Run(level.String(), func(t *testing.T) { testToolCallLines(t, level) })
	}
}

func testToolCallLines(t *testing.T, level slog.Level) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: level}))
	answer := func(_ context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("secret note text"), nil
	}
	ok := tools.Tool{Toolset: tools.ToolsetGraph, Tool: mcp.NewTool("ok", mcp.WithReadOnlyHintAnnotation(true)), Handler: answer}
	write := tools.Tool{Toolset: tools.ToolsetGraph, Tool: mcp.NewTool("write", mcp.WithReadOnlyHintAnnotation(false)), Handler: answer}
	boom := tools.Tool{Toolset: tools.ToolsetGraph, Tool: mcp.NewTool("boom", mcp.WithReadOnlyHintAnnotation(true)),
		Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("kaput") }}
	srv := server.New(server.Options{Version: "1.2.3", Tools: []tools.Tool{ok, write, boom}, Logger: logger})

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
	if _, err := c.CallTool(t.Context(), callRequest("write", map[string]any{"q": "secret argument"})); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(t.Context(), callRequest("boom", nil)); err == nil {
		t.Fatal("a panicking handler must fail the call")
	}

	lines := map[string]map[string]any{}
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		if m["msg"] == "tool call" {
			name, _ := m["tool"].(string)
			if _, dup := lines[name]; dup {
				t.Fatalf("two lines for %s:\n%s", name, logs.String())
			}
			lines[name] = m
		}
	}
	want := map[string]string{"write": "INFO", "boom": "ERROR"}
	if level == slog.LevelDebug {
		want["ok"] = "DEBUG"
	}
	if len(lines) != len(want) {
		t.Fatalf("%d tool call lines, want %d:\n%s", len(lines), len(want), logs.String())
	}
	for name, lvl := range want {
		m := lines[name]
		if m["level"] != lvl || m["toolset"] != "graph" {
			t.Errorf("%s line: %v, want level %s", name, m, lvl)
		}
		if _, has := m["duration_s"].(float64); !has {
			t.Errorf("no duration_s: %v", m)
		}
	}
	for _, name := range []string{"ok", "write"} {
		if m := lines[name]; m != nil && m["outcome"] != "ok" {
			t.Errorf("%s line: %v", name, m)
		}
	}
	if boom := lines["boom"]; boom["outcome"] != "error" || !strings.Contains(boom["err"].(string), "kaput") {
		t.Errorf("panic line: %v", boom)
	}
	if strings.Contains(logs.String(), "secret") {
		t.Error("arguments or results reached the log")
	}
}
