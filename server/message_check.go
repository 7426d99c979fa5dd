package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MaxResourceURIBytes bounds a resource URI a client sends (resources/read,
// resources/subscribe and unsubscribe, completion/complete of a resource
// template, subscriptions/listen). A note's URI is its vault path,
// percent-encoded: far below. Longer ones are refused before mcp-go
// matches them against the URI templates, which costs ~5 µs of CPU per
// byte (issue 43: 512 KiB took 2.6 s).
const MaxResourceURIBytes = 8 << 10

// refusal is why a JSON-RPC message is answered with an error before it
// is handled, and the error's code.
type refusal struct {
	code int
	msg  string
	// nullID: the error cannot name the request's id (the id itself is
	// what is ambiguous).
	nullID bool
	// reason labels the refusal in metrics (http_refused_total).
	reason string
}

// strictRefusal checks one JSON-RPC message (valid JSON) before it is
// handled, on every entry point alike (stdio, HTTP, the relay to a
// vault's owner, the shim), given its id and method as the caller read
// them:
//   - a key given twice anywhere in it is refused (issue 21).
//     encoding/json, which mcp-go decodes with, keeps the last of two
//     equal keys, while a gateway or an audit log in front of the server
//     may read the first: `"name":"get_node","name":"delete_node"` would
//     be logged as a read and run as a delete. A duplicate in params (tool
//     arguments included) is invalid params (-32602); anywhere else the
//     request itself is invalid (-32600);
//   - an id that is not a string, a number or null (JSON-RPC 2.0) is an
//     invalid request (-32600, answered with a null id; issue 43);
//   - a resource URI over MaxResourceURIBytes is invalid params (-32602;
//     issue 43). Only a message longer than the limit is looked into, so
//     every other message costs nothing more;
//   - a prompts/get without a required argument is invalid params (-32602;
//     issue 47), not the internal error mcp-go would answer.
func strictRefusal(msg []byte, id json.RawMessage, method string) (refusal, bool) {
	if path, dup := tools.DuplicateKey(msg); dup {
		if path == "params" || strings.HasPrefix(path, "params.") || strings.HasPrefix(path, "params[") {
			return refusal{code: codeInvalidParams, msg: fmt.Sprintf("invalid params: key %q is given twice; send each key once", path), reason: "duplicate_key"}, true
		}
		return refusal{
			code:   codeInvalidRequest,
			msg:    fmt.Sprintf("invalid request: key %q is given twice; send each key once", path),
			nullID: path == "id",
			reason: "duplicate_key",
		}, true
	}
	if !validID(id) {
		return refusal{code: codeInvalidRequest, msg: "invalid request: id must be a string, a number or null (JSON-RPC 2.0)", nullID: true, reason: "bad_id"}, true
	}
	if len(msg) > MaxResourceURIBytes {
		if n := longestResourceURI(msg, method); n > MaxResourceURIBytes {
			return refusal{code: codeInvalidParams, msg: fmt.Sprintf(
				"invalid params: the resource URI is %d bytes, over the limit of %d; a note's URI is %s<note ID> (resources/list names them)",
				n, MaxResourceURIBytes, "vault://note/"), reason: "uri_too_long"}, true
		}
	}
	return missingPromptArgument(msg, method)
}

// validID reports whether a message's raw id (absent: a notification) is
// a string, a number or null.
func validID(id json.RawMessage) bool {
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

// longestResourceURI returns the length of the longest resource URI in a
// message of method (0 for a method that takes none).
func longestResourceURI(msg []byte, method string) int {
	switch mcp.MCPMethod(method) {
	case mcp.MethodResourcesRead, mcp.MethodResourcesSubscribe, mcp.MethodResourcesUnsubscribe, mcp.MethodCompletionComplete, mcp.MethodSubscriptionsListen:
	default:
		return 0
	}
	var m struct {
		Params struct {
			URI string `json:"uri"`
			Ref struct {
				URI string `json:"uri"`
			} `json:"ref"`
			Notifications struct {
				ResourceSubscriptions []string `json:"resourceSubscriptions"`
			} `json:"notifications"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return 0 // mcp-go answers it as it is malformed
	}
	n := max(len(m.Params.URI), len(m.Params.Ref.URI))
	for _, u := range m.Params.Notifications.ResourceSubscriptions {
		n = max(n, len(u))
	}
	return n
}
