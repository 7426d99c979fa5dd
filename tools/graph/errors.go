package graph

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// Error codes of spec 000.
const (
	CodeInvalidParams = "INVALID_PARAMS" // bad, missing or out-of-range arguments
	CodeNodeExists    = "NODE_EXISTS"    // create_node on an existing node
	CodeNodeNotFound  = "NODE_NOT_FOUND" // update_node on a missing node
	CodeProviderError = "PROVIDER_ERROR" // the store, vault or embedder failed
)

// ErrorResponse is the spec's error shape, the text of an isError result.
type ErrorResponse struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody carries the code and a message written for the model, and,
// when a write broke a knowledge base's folder constraint, the problems
// found (the kb toolset's issue objects).
type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Issues  any    `json:"issues,omitempty"`
}

// codeError is an error whose code and message a handler has already
// chosen (for instance NODE_EXISTS naming the title).
type codeError struct{ code, msg string }

func (e *codeError) Error() string { return e.code + ": " + e.msg }

// Messages for failures the model cannot fix by changing its arguments.
// The cause is logged, never shown: it may hold driver text or paths.
const (
	msgProvider  = "the graph store or the vault failed to answer; try again later"
	msgCancelled = "the request was cancelled or timed out before it finished"
)

// toErrorBody maps an error from decoding or from the graph service to the
// spec's code and message, and logs what the model must not see, once.
func (d Deps) toErrorBody(ctx context.Context, tool string, err error) ErrorBody {
	var ce *codeError
	var argErr *tools.ArgumentError
	var coreArg *core.ArgumentError
	var constraint *core.ConstraintError
	var badPath *core.InvalidPathError
	switch {
	case errors.As(err, &ce):
		return ErrorBody{Code: ce.code, Message: ce.msg}
	case errors.As(err, &constraint):
		return ErrorBody{Code: CodeInvalidParams, Message: constraint.Msg, Issues: constraint.Issues}
	case errors.As(err, &badPath):
		return ErrorBody{Code: CodeInvalidParams, Message: badPath.Error()}
	case errors.As(err, &argErr):
		return ErrorBody{Code: CodeInvalidParams, Message: argErr.Msg}
	case errors.As(err, &coreArg):
		return ErrorBody{Code: CodeInvalidParams, Message: coreArg.Msg}
	case errors.Is(err, core.ErrInvalidPath):
		return ErrorBody{Code: CodeInvalidParams, Message: "the path is not allowed: use a relative folder inside the vault, without '..'"}
	case errors.Is(err, core.ErrInvalidArgument):
		d.logger().InfoContext(ctx, "tool argument refused", "tool", tool, "toolset", tools.ToolsetGraph, "err", err)
		return ErrorBody{Code: CodeInvalidParams, Message: "the arguments were refused as invalid"}
	case errors.Is(err, core.ErrExists):
		return ErrorBody{Code: CodeNodeExists, Message: "the node already exists"}
	case errors.Is(err, core.ErrNotFound):
		return ErrorBody{Code: CodeNodeNotFound, Message: "the node does not exist"}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return ErrorBody{Code: CodeProviderError, Message: msgCancelled}
	default:
		tools.LogUnforeseen(ctx, d.logger(), tool, tools.ToolsetGraph, err) // no mapping: a failure we did not foresee
		return ErrorBody{Code: CodeProviderError, Message: tools.ProviderMessage(err, msgProvider)}
	}
}

// errorResult is the isError tool result carrying body (tools.ErrorResult).
func errorResult(body ErrorBody) *mcp.CallToolResult {
	return tools.ErrorResult(ErrorResponse{Error: body})
}
