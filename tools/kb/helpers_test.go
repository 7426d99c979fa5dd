package kb_test

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

func listNotesRequest() mcp.CallToolRequest {
	var req mcp.CallToolRequest
	req.Params.Name = "list_notes"
	req.Params.Arguments = json.RawMessage(`{"knowledge_base_name":"k"}`)
	return req
}
