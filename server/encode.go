package server

import (
	"encoding/json"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// encodeMessage appends one JSON-RPC message to dst as a line. A tool
// result in the shape vaultgraph's tools build (see appendToolResult) is
// written directly; anything else goes through encoding/json.
func encodeMessage(dst []byte, msg mcp.JSONRPCMessage) ([]byte, error) {
	if resp, ok := msg.(mcp.JSONRPCResponse); ok {
		if res, ok := resp.Result.(*mcp.CallToolResult); ok && plainToolResult(res) {
			return appendToolResult(dst, resp.ID, res)
		}
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return dst, err
	}
	dst = append(dst, b...)
	return append(dst, '\n'), nil
}

// plainToolResult reports whether res is one text content, with its
// structured form (if any) already encoded, and nothing else: what every
// vaultgraph tool answers (tools/graph successResult, tools/envelope).
func plainToolResult(res *mcp.CallToolResult) bool {
	if res.Meta != nil || res.ResultType != "" || len(res.InputRequests) > 0 || res.RequestState != "" ||
		len(res.RawStructuredContent) > 0 || len(res.Content) != 1 {
		return false
	}
	if res.StructuredContent != nil {
		if _, ok := res.StructuredContent.(json.RawMessage); !ok {
			return false
		}
	}
	text, ok := res.Content[0].(mcp.TextContent)
	return ok && text.Annotations == nil && text.Meta == nil
}

// appendToolResult appends what json.Marshal writes for a plain tool
// result, with the same members (in another order), in one pass:
// CallToolResult.MarshalJSON builds a map and encoding/json then
// re-validates the text and the structured content, three passes over an
// answer that is mostly note content.
//
// The structured content is copied as it is: it is encoding/json's own
// compact output or a tools.JSONAppender's, which writes the same (tools/graph
// successResult, tools/envelope encode), so it is valid and holds no
// newline. The text is escaped by tools.AppendJSONString.
func appendToolResult(dst []byte, id mcp.RequestId, res *mcp.CallToolResult) ([]byte, error) {
	idJSON, err := json.Marshal(id)
	if err != nil {
		return dst, err
	}
	text := res.Content[0].(mcp.TextContent).Text
	raw, _ := res.StructuredContent.(json.RawMessage)
	dst = slices.Grow(dst, len(text)+len(text)/8+len(raw)+128)
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, idJSON...)
	dst = append(dst, `,"result":{"content":[{"type":"text","text":`...)
	dst = tools.AppendJSONString(dst, text)
	dst = append(dst, `}]`...)
	if len(raw) > 0 {
		dst = append(dst, `,"structuredContent":`...)
		dst = append(dst, raw...)
	}
	if res.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	return append(dst, "}}\n"...), nil
}
