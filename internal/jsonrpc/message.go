package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Kind is what a message is.
type Kind int

const (
	// Invalid is a message to refuse: Parse says why, as an *Error.
	Invalid Kind = iota
	// Request has a method and a non-null id: it gets an answer.
	Request
	// Notification has a method and no id: it gets none.
	Notification
	// Response has no method: an answer to a request of the other side.
	Response
)

func (k Kind) String() string {
	switch k {
	case Request:
		return "request"
	case Notification:
		return "notification"
	case Response:
		return "response"
	}
	return "invalid"
}

// Head is what a transport reads of a message before handing it on: its
// kind, id and method. The rest is left to the handler.
type Head struct {
	Kind   Kind
	ID     json.RawMessage // as sent; nil when absent
	Method string
}

// Parse reads the head of one message (a line without its newline, or
// with it). A message that is not valid JSON gets a parse error; a batch,
// JSON that is not an object, and a method with "id": null get an invalid
// request (all with a null id, as JSON-RPC 2.0 prescribes when the id
// cannot be told); Head.Kind is Invalid then. An id that is neither a
// string, a number nor null is left to the caller (ValidID), which
// answers it with the other checks it makes.
func Parse(msg []byte) (Head, *Error) {
	trimmed := bytes.TrimSpace(msg)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if !json.Valid(trimmed) {
			return Head{}, parseError()
		}
		return Head{}, batchError()
	}
	var h struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.Unmarshal(trimmed, &h); err != nil {
		switch {
		case !json.Valid(trimmed):
			return Head{}, parseError()
		case trimmed[0] == '{': // "method" is not a string
			return Head{ID: h.ID}, &Error{Code: CodeInvalidRequest, Message: `invalid request: "method" must be a string`}
		}
		return Head{}, notAnObject()
	}
	return Classify(trimmed, h.ID, h.Method)
}

// Classify is Parse for a caller that has decoded the message's id and
// method itself (without error): msg is only looked at for its first
// byte.
func Classify(msg []byte, id json.RawMessage, method string) (Head, *Error) {
	trimmed := bytes.TrimLeft(msg, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' { // null, or a batch decoded elsewhere
		if len(trimmed) > 0 && trimmed[0] == '[' {
			return Head{}, batchError()
		}
		return Head{}, notAnObject()
	}
	head := Head{ID: id, Method: method}
	switch {
	case method == "":
		head.Kind = Response
	case len(id) == 0:
		head.Kind = Notification
	case IsNull(id):
		return head, &Error{Code: CodeInvalidRequest, Message: `invalid request: "id" is null; give a request a string or number id (MCP forbids null), and leave "id" out of a notification`}
	default:
		head.Kind = Request
	}
	return head, nil
}

func batchError() *Error {
	return &Error{Code: CodeInvalidRequest, Message: "invalid request: JSON-RPC batches are not supported (MCP removed them in protocol 2025-06-18); send each message on a line of its own"}
}

func parseError() *Error {
	return &Error{Code: CodeParseError, Message: "Parse error: the message is not valid JSON; send one JSON-RPC object per line"}
}

func notAnObject() *Error {
	return &Error{Code: CodeInvalidRequest, Message: "invalid request: a JSON-RPC message is a JSON object"}
}

// IsNull reports whether a raw id is JSON null.
func IsNull(id json.RawMessage) bool {
	return string(bytes.TrimSpace(id)) == "null"
}

// HasID reports whether a raw id is present and not null: a message with
// a method and such an id is a request.
func HasID(id json.RawMessage) bool {
	return len(id) > 0 && !IsNull(id)
}

// ValidID reports whether a raw id (absent: a notification) is a string,
// a number or null, the values JSON-RPC 2.0 allows.
func ValidID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return true
	}
	switch c := id[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	case string(id) == "null":
		return true
	}
	return false
}

// SameID compares two ids as JSON values: 1 and 1.0 differ in text but
// not in value; "1" and 1 differ.
func SameID(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return fmt.Sprint(va) == fmt.Sprint(vb) && fmt.Sprintf("%T", va) == fmt.Sprintf("%T", vb)
}
