package graph

import (
	"context"
	"encoding/json"
	"github.com/vaultgraph/vaultgraph/tools"
	"reflect"

	"github.com/mark3labs/mcp-go/mcp"
)

// successResult shapes a handler's answer: nil (or a nil pointer) is the
// JSON null, a slice is a JSON array (text only: structuredContent must be
// an object), anything else is an object sent as text and as
// structuredContent. It is encoded by tools.EncodeAnswer: into the
// transport's buffer when ctx carries one.
func successResult(ctx context.Context, v any) *mcp.CallToolResult {
	rv := reflect.ValueOf(v)
	if v == nil || (rv.Kind() == reflect.Pointer && rv.IsNil()) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("null")}}
	}
	text, raw := tools.EncodeAnswer(ctx, v)
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}}
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		res.StructuredContent = raw
	}
	return res
}

// mustJSON is tools.EncodeJSON.
func mustJSON(v any) (string, json.RawMessage) { return tools.EncodeJSON(v) }
