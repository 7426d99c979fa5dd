package entities

import (
	"context"
	"errors"

	"github.com/vaultgraph/vaultgraph/tools"
)

// The error codes of spec 003.
const (
	CodeProjectNotFound = "PROJECT_NOT_FOUND"
	CodeValidationError = "VALIDATION_ERROR"
	CodeEntityNotFound  = "ENTITY_NOT_FOUND"
	CodeInternalError   = "INTERNAL_ERROR"
)

// ErrorResponse is spec 003's error envelope.
type ErrorResponse struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody is the code, a message for the model and details naming what
// was wrong (always an object, {} when there is nothing to add).
type ErrorBody struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

// Error is a failure with its spec code, as handlers return it.
type Error struct{ Body ErrorBody }

func (e *Error) Error() string { return e.Body.Code + ": " + e.Body.Message }

func fail(code, msg string, details map[string]any) *Error {
	if details == nil {
		details = map[string]any{}
	}
	return &Error{Body: ErrorBody{Code: code, Message: msg, Details: details}}
}

// Messages for failures the model cannot fix by changing its arguments;
// the cause is logged, never shown.
const (
	msgInternal = "the graph store failed to answer; try again later"
	msgTimeout  = "the request did not finish within the time limit"
)

// toErrorBody maps err to the spec's envelope and logs, once, what the
// model must not see.
func (d Deps) toErrorBody(ctx context.Context, tool string, err error) ErrorBody {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e.Body
	case errors.Is(err, context.DeadlineExceeded):
		d.logger().WarnContext(ctx, "tool timed out", "tool", tool, "toolset", tools.ToolsetEntities, "timeout_s", d.timeout().Seconds())
		return fail(CodeInternalError, msgTimeout, map[string]any{"timeoutSeconds": d.timeout().Seconds()}).Body
	case errors.Is(err, context.Canceled):
		return fail(CodeInternalError, "the request was cancelled", nil).Body
	default:
		tools.LogUnforeseen(ctx, d.logger(), tool, tools.ToolsetEntities, err) // no mapping: a failure we did not foresee
		return fail(CodeInternalError, msgInternal, nil).Body
	}
}
