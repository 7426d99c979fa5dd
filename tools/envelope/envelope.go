// Package envelope shapes the answers of the memory toolset (spec 004):
// every tool answers {"success":true,"data":{...}} or
// {"success":false,"error":"..."}, the failure as a tool result with isError
// set so that clients that look at the flag and clients that look at the
// body agree.
package envelope

import (
	"encoding/json"
	"fmt"
	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/mcp"
)

// Success is the body of a successful answer.
type Success struct {
	Success bool `json:"success"`
	Data    any  `json:"data"`
}

// Failure is the body of a failed answer.
type Failure struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
}

// OK wraps data in the success envelope, as JSON text and as
// structuredContent.
func OK(data any) *mcp.CallToolResult {
	return result(Success{Success: true, Data: data}, false)
}

// Fail answers with the failure envelope and isError set. msg is the
// spec's message ("Query cannot be empty", "Memory not found: {id}").
func Fail(msg string) *mcp.CallToolResult {
	return result(Failure{Success: false, Error: msg}, true)
}

// Failf is Fail with formatting.
func Failf(format string, args ...any) *mcp.CallToolResult {
	return Fail(fmt.Sprintf(format, args...))
}

func result(body any, isError bool) *mcp.CallToolResult {
	text, raw := encode(body)
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.NewTextContent(text)},
		StructuredContent: raw,
		IsError:           isError,
	}
}

// encode is tools.EncodeJSON.
func encode(v any) (string, json.RawMessage) { return tools.EncodeJSON(v) }
