package server

import (
	"encoding/json"
	"net/http"

	"github.com/vaultgraph/vaultgraph/internal/jsonrpc"
)

// JSON-RPC error codes of the HTTP transport's own refusals, in the range
// JSON-RPC 2.0 leaves to implementations (-32000 to -32099). A refusal is
// an HTTP status with a JSON-RPC error body, so that a client that shows
// the body (or the shim, which relays it) tells its user what to do.
const (
	CodeUnauthorized    = -32001 // 401: no token, or not one the server knows
	CodeForbidden       = -32003 // 403: an Origin or Host the server does not allow
	CodeSessionNotFound = -32004 // 404: a session that expired, was closed or is another token's
	CodeTooManySessions = -32005 // 429/503: the token's or the server's session limit is reached
	CodeStarting        = -32006 // 503: the server is still starting (first sync)
)

// writeHTTPError answers with status and a JSON-RPC error body.
func writeHTTPError(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string) {
	line := jsonrpc.ErrorLine(id, code, msg)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(line)
}
