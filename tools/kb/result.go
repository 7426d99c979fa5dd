package kb

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// successResult sends an answer object as text and as structuredContent.
func successResult(v any) *mcp.CallToolResult {
	text, raw := mustJSON(v)
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, StructuredContent: raw}
}

// mustJSON encodes v compactly, without escaping <, > and & (note content
// is markdown, and \u003c helps no model). The response types always
// encode; a failure is a programming error.
func mustJSON(v any) (string, json.RawMessage) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("kb: encode %T: %v", v, err))
	}
	raw := bytes.TrimRight(buf.Bytes(), "\n")
	return string(raw), json.RawMessage(raw)
}
