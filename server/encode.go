package server

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// encodeMessage encodes one JSON-RPC message as a line. A tool result in
// the shape vaultgraph's tools build (see writeToolResult) is written
// directly; anything else goes through encoding/json.
func encodeMessage(msg mcp.JSONRPCMessage) ([]byte, error) {
	if resp, ok := msg.(mcp.JSONRPCResponse); ok {
		if res, ok := resp.Result.(*mcp.CallToolResult); ok && plainToolResult(res) {
			return writeToolResult(resp.ID, res)
		}
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
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

// writeToolResult writes what json.Marshal writes for a plain tool
// result, with the same members (in another order), in one pass:
// CallToolResult.MarshalJSON builds a map and encoding/json then
// re-validates the text and the structured content, three passes over an
// answer that is mostly note content.
//
// The structured content is copied as it is: it is encoding/json's own
// compact output (tools/graph mustJSON, tools/envelope encode), so it is
// valid and holds no newline. The text is escaped by appendJSONString.
func writeToolResult(id mcp.RequestId, res *mcp.CallToolResult) ([]byte, error) {
	idJSON, err := json.Marshal(id)
	if err != nil {
		return nil, err
	}
	text := res.Content[0].(mcp.TextContent).Text
	raw, _ := res.StructuredContent.(json.RawMessage)
	var buf bytes.Buffer
	buf.Grow(len(text) + len(text)/8 + len(raw) + 128)
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	buf.Write(idJSON)
	buf.WriteString(`,"result":{"content":[{"type":"text","text":`)
	buf.Write(appendJSONString(buf.AvailableBuffer(), text))
	buf.WriteString(`}]`)
	if len(raw) > 0 {
		buf.WriteString(`,"structuredContent":`)
		buf.Write(raw)
	}
	if res.IsError {
		buf.WriteString(`,"isError":true`)
	}
	buf.WriteString("}}\n")
	return buf.Bytes(), nil
}

// appendJSONString appends s as a JSON string, escaped as encoding/json
// escapes it without HTML escaping. Valid UTF-8 (every answer: it is
// encoding/json's output or note text the vault parser checked) is
// escaped byte by byte with a table, copying multi-byte characters as they
// are; encoding/json decodes every one of them, which made escaping a
// note in another script a third of a call. Invalid UTF-8 goes through
// encoding/json, which replaces bad bytes with U+FFFD.
func appendJSONString(dst []byte, s string) []byte {
	if !utf8.ValidString(s) {
		b, _ := json.Marshal(s) // a string always encodes
		return append(dst, b...)
	}
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x20 && c != '"' && c != '\\' && c != 0xE2:
			continue
		case c == 0xE2: // U+2028 and U+2029 are escaped, as encoding/json does
			if i+2 >= len(s) || s[i+1] != 0x80 || s[i+2]&^1 != 0xA8 {
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[s[i+2]&0xF])
			i += 2
			start = i + 1
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
