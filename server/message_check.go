package server

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/internal/jsonrpc"
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
			return refusal{code: jsonrpc.CodeInvalidParams, msg: fmt.Sprintf("invalid params: key %q is given twice; send each key once", path), reason: "duplicate_key"}, true
		}
		return refusal{
			code:   jsonrpc.CodeInvalidRequest,
			msg:    fmt.Sprintf("invalid request: key %q is given twice; send each key once", path),
			nullID: path == "id",
			reason: "duplicate_key",
		}, true
	}
	if !jsonrpc.ValidID(id) {
		return refusal{code: jsonrpc.CodeInvalidRequest, msg: "invalid request: id must be a string, a number or null (JSON-RPC 2.0)", nullID: true, reason: "bad_id"}, true
	}
	if len(msg) > MaxResourceURIBytes {
		if n := longestResourceURI(msg, method); n > MaxResourceURIBytes {
			return refusal{code: jsonrpc.CodeInvalidParams, msg: fmt.Sprintf(
				"invalid params: the resource URI is %d bytes, over the limit of %d; a note's URI is %s<note ID> (resources/list names them)",
				n, MaxResourceURIBytes, "vault://note/"), reason: "uri_too_long"}, true
		}
	}
	return missingPromptArgument(msg, method)
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

// screen is what every line transport (stdio, the relay to a vault's
// owner, the shim) does with a line from its client before handing it
// on: it reads the message's head (jsonrpc.Parse: not JSON, a batch, not
// an object, "id": null on a method) and makes the checks of
// strictRefusal. A message to hand on comes back with ok true. A refused
// one comes back with why (for the log) and, for a request or a message
// whose id cannot be told, the error line to answer (nil for a
// notification or a response, which get none).
func screen(line []byte) (head jsonrpc.Head, answer []byte, why string, ok bool) {
	head, perr := jsonrpc.Parse(line)
	if perr != nil {
		return head, jsonrpc.ErrorLine(invalidID(head), perr.Code, perr.Message), perr.Message, false
	}
	ref, refused := strictRefusal(line, head.ID, head.Method)
	if !refused {
		return head, nil, "", true
	}
	switch {
	case head.Kind == jsonrpc.Response: // never answered (JSON-RPC 2.0)
	case ref.nullID:
		answer = jsonrpc.ErrorLine(nil, ref.code, ref.msg)
	case head.Kind == jsonrpc.Request:
		answer = jsonrpc.ErrorLine(head.ID, ref.code, ref.msg)
	}
	return head, answer, ref.msg, false
}

// MaxStdioMessageBytes caps one JSON-RPC message (one line) that a line
// transport (stdio, the relay, the shim) reads from its client. The HTTP
// transport caps bodies at DefaultMaxBodyBytes before reading them; over
// stdio a line would otherwise be read whole whatever its length, so a
// client sending a gigabyte would make the process hold it all. A longer
// line is skipped without being kept and answered with a JSON-RPC
// "invalid request" error (answerTooLarge). The limit is twice the tools'
// argument limit (tools.MaxArgumentBytes), so any call the tools would
// accept fits.
const MaxStdioMessageBytes = 16 << 20

// answerTooLarge answers each line over MaxStdioMessageBytes that a line
// transport's jsonrpc.Reader skipped: an error for the id read from its
// beginning, else for a null id, as JSON-RPC prescribes.
func answerTooLarge(write func(line []byte), logger *slog.Logger) jsonrpc.TooLarge {
	return func(id json.RawMessage, size int) {
		logger.Warn("stdio: message over the size limit skipped", "bytes", size, "limit", MaxStdioMessageBytes)
		write(jsonrpc.ErrorLine(id, jsonrpc.CodeInvalidRequest, fmt.Sprintf(
			"request too large: %d bytes, over the limit of %d bytes (16 MiB) for one message on stdio; send less at once", size, MaxStdioMessageBytes)))
	}
}

// invalidID is the id to answer a message jsonrpc.Parse refused with:
// its own when it has a valid one, else null, as JSON-RPC 2.0 wants when
// the id cannot be told.
func invalidID(head jsonrpc.Head) json.RawMessage {
	if jsonrpc.HasID(head.ID) && jsonrpc.ValidID(head.ID) {
		return head.ID
	}
	return nil
}
