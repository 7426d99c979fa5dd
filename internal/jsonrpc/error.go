package jsonrpc

import "encoding/json"

// The error codes JSON-RPC 2.0 defines. Codes from -32000 to -32099 are
// left to implementations: vaultgraph's are declared where they are
// answered (package server).
const (
	CodeParseError     = -32700 // not valid JSON
	CodeInvalidRequest = -32600 // valid JSON, not a valid request
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Message }

// ErrorResponse is a JSON-RPC error response.
type ErrorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   Error           `json:"error"`
}

// NewError builds the error response for id (nil or empty: null).
func NewError(id json.RawMessage, code int, msg string) ErrorResponse {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	return ErrorResponse{JSONRPC: "2.0", ID: id, Error: Error{Code: code, Message: msg}}
}

// ErrorLine is the error response for id as one line, newline included.
func ErrorLine(id json.RawMessage, code int, msg string) []byte {
	b, err := json.Marshal(NewError(id, code, msg))
	if err != nil { // an id that is not JSON: answered as null
		b, _ = json.Marshal(NewError(nil, code, msg))
	}
	return append(b, '\n')
}
