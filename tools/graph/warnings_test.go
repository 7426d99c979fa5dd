package graph

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/core"
)

// answer is a handler that reports warnings about what it touched and
// answers with a fixed JSON value.
func answer(value string, warnings ...string) func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		core.AddCallWarnings(ctx, warnings...)
		res := mcp.NewToolResultText(value)
		if value[0] == '{' {
			res.StructuredContent = json.RawMessage(value)
		}
		return res, nil
	}
}

func TestWarningsAreTheCallsOwn(t *testing.T) {
	var req mcp.CallToolRequest
	ctx := t.Context()

	// An object answer gets the field, in its text and structured content.
	res, _ := withWarnings(answer(`{"id":"a.md"}`, "Broken link: [[missing]]"))(ctx, req)
	want := `{"id":"a.md","_warnings":["Broken link: [[missing]]"]}`
	raw, _ := json.Marshal(res.StructuredContent)
	if res.Content[0].(mcp.TextContent).Text != want || string(raw) != want {
		t.Fatalf("object answer: %+v", res.Content)
	}
	// An array or null answer keeps its shape; the warnings follow.
	for _, v := range []string{`[]`, `null`} {
		res, _ := withWarnings(answer(v, "w"))(ctx, req)
		if len(res.Content) != 2 || res.Content[0].(mcp.TextContent).Text != v || res.Content[1].(mcp.TextContent).Text != `{"_warnings":["w"]}` {
			t.Fatalf("%s answer: %+v", v, res.Content)
		}
	}
	// A call that touched nothing with a problem has no field.
	res, _ = withWarnings(answer(`{"id":"b.md"}`))(ctx, req)
	if len(res.Content) != 1 || res.Content[0].(mcp.TextContent).Text != `{"id":"b.md"}` {
		t.Fatalf("clean answer: %+v", res.Content)
	}
	// Many: capped, with a line saying how many more.
	many := make([]string, core.MaxCallWarnings+5)
	for i := range many {
		many[i] = string(rune('a' + i))
	}
	res, _ = withWarnings(answer(`{}`, many...))(ctx, req)
	var got struct {
		Warnings []string `json:"_warnings"`
	}
	_ = json.Unmarshal([]byte(res.Content[0].(mcp.TextContent).Text), &got)
	if len(got.Warnings) != core.MaxCallWarnings+1 {
		t.Fatalf("capped warnings: %d", len(got.Warnings))
	}
}

func TestConcurrentCallsNeverSeeEachOthersWarnings(t *testing.T) {
	var req mcp.CallToolRequest
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			mine := string(rune('A' + i%26))
			res, _ := withWarnings(answer(`{}`, mine))(t.Context(), req)
			var got struct {
				Warnings []string `json:"_warnings"`
			}
			_ = json.Unmarshal([]byte(res.Content[0].(mcp.TextContent).Text), &got)
			if len(got.Warnings) != 1 || got.Warnings[0] != mine {
				t.Errorf("call %d got %v", i, got.Warnings)
			}
		})
	}
	wg.Wait()
}
