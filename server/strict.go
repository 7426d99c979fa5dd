package server

import (
	"fmt"
	"strings"

	"github.com/vaultgraph/vaultgraph/tools"
)

// refusal is why a JSON-RPC message is answered with an error before it
// is handled, and the error's code.
type refusal struct {
	code int
	msg  string
	// nullID: the error cannot name the request's id (the id itself is
	// what is ambiguous).
	nullID bool
}

// strictRefusal checks one JSON-RPC message (valid JSON) before it is
// handled, on stdio and HTTP alike: a key given twice anywhere in it is
// refused (issue 21). encoding/json, which mcp-go decodes with, keeps the
// last of two equal keys, while a gateway or an audit log in front of the
// server may read the first: `"name":"get_node","name":"delete_node"` would
// be logged as a read and run as a delete. A duplicate in params (tool
// arguments included) is invalid params (-32602); anywhere else the
// request itself is invalid (-32600).
func strictRefusal(msg []byte) (refusal, bool) {
	path, dup := tools.DuplicateKey(msg)
	if !dup {
		return refusal{}, false
	}
	if path == "params" || strings.HasPrefix(path, "params.") || strings.HasPrefix(path, "params[") {
		return refusal{code: codeInvalidParams, msg: fmt.Sprintf("invalid params: key %q is given twice; send each key once", path)}, true
	}
	return refusal{
		code:   codeInvalidRequest,
		msg:    fmt.Sprintf("invalid request: key %q is given twice; send each key once", path),
		nullID: path == "id",
	}, true
}
