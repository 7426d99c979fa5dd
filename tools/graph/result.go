package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/mark3labs/mcp-go/mcp"
)

// successResult shapes a handler's answer: nil (or a nil pointer) is the
// JSON null, a slice is a JSON array (text only: structuredContent must be
// an object), anything else is an object sent as text and as
// structuredContent.
func successResult(v any) *mcp.CallToolResult {
	rv := reflect.ValueOf(v)
	if v == nil || (rv.Kind() == reflect.Pointer && rv.IsNil()) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("null")}}
	}
	text, raw := mustJSON(v)
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}}
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		res.StructuredContent = raw
	}
	return res
}

// mustJSON encodes v compactly, without escaping <, > and & (note content
// is markdown, and \u003c helps no model). The response types always
// encode; a failure is a programming error.
func mustJSON(v any) (string, json.RawMessage) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("graph: encode %T: %v", v, err))
	}
	raw := bytes.TrimRight(buf.Bytes(), "\n")
	return string(raw), json.RawMessage(raw)
}
