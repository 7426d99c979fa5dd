package kb

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
	kbase "github.com/vaultgraph/vaultgraph/kb"
	"github.com/vaultgraph/vaultgraph/tools"
)

// Error codes: the nine of spec 002, and provider_error for failures the
// caller cannot fix by changing its call (the spec defines none for them).
const (
	CodeKnowledgeBaseNotFound      = kbase.CodeKnowledgeBaseNotFound
	CodeKnowledgeBaseAlreadyExists = kbase.CodeKnowledgeBaseAlreadyExists
	CodeFolderConstraintViolation  = kbase.CodeFolderConstraintViolation
	CodeNoteNotFound               = kbase.CodeNoteNotFound
	CodeNoteAlreadyExists          = kbase.CodeNoteAlreadyExists
	CodeInvalidNotePath            = kbase.CodeInvalidNotePath
	CodeSchemaValidationFailed     = kbase.CodeSchemaValidationFailed
	CodeSubfolderOverlap           = kbase.CodeSubfolderOverlap
	CodeVersionConflict            = kbase.CodeVersionConflict
	CodeProviderError              = "provider_error"
)

// ErrorResponse is the spec's error envelope, the text of an isError result.
type ErrorResponse struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody carries the code, a message written for the model and, for
// some codes, details: the constraint and issues of a
// folder_constraint_violation, the note's current version for a
// version_conflict.
type ErrorBody struct {
	Code           string               `json:"code"`
	Message        string               `json:"message"`
	Constraint     *kbase.ConstraintRef `json:"constraint,omitempty"`
	Issues         []kbase.Issue        `json:"issues,omitempty"`
	CurrentVersion string               `json:"current_version,omitempty"`
}

// Messages for failures the model cannot fix by changing its arguments.
// The cause is logged, never shown: it may hold paths or system text.
const (
	msgProvider  = "the vault or the graph store failed to answer; try again later"
	msgCancelled = "the request was cancelled or timed out before it finished"
)

// toErrorBody maps an error from decoding or from the service to the
// spec's code and message, and logs what the model must not see, once.
func (d Deps) toErrorBody(ctx context.Context, tool string, err error) ErrorBody {
	var ke *kbase.Error
	var argErr *tools.ArgumentError
	switch {
	case errors.As(err, &ke):
		return ErrorBody{Code: ke.Code, Message: ke.Message, Constraint: ke.Constraint, Issues: ke.Issues, CurrentVersion: ke.CurrentVersion}
	case errors.As(err, &argErr):
		return ErrorBody{Code: CodeSchemaValidationFailed, Message: argErr.Msg}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return ErrorBody{Code: CodeProviderError, Message: msgCancelled}
	default:
		tools.LogUnforeseen(ctx, d.logger(), tool, tools.ToolsetKB, err) // no mapping: a failure we did not foresee
		return ErrorBody{Code: CodeProviderError, Message: tools.ProviderMessage(err, msgProvider)}
	}
}

// errorResult is the isError tool result carrying body (tools.ErrorResult).
func errorResult(body ErrorBody) *mcp.CallToolResult {
	return tools.ErrorResult(ErrorResponse{Error: body})
}
