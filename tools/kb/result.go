package kb

import (
	"encoding/json"
	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/mcp"
)

// successResult sends an answer object as text and as structuredContent.
func successResult(v any) *mcp.CallToolResult {
	text, raw := mustJSON(v)
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, StructuredContent: raw}
}

// mustJSON is tools.EncodeJSON.
func mustJSON(v any) (string, json.RawMessage) { return tools.EncodeJSON(v) }
