package edit

import (
	"context"
	"errors"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/noteedit"
	"github.com/vaultgraph/vaultgraph/tools"
)

// Error codes: spec 000's, and VERSION_CONFLICT (spec 002's
// version_conflict, in spec 000's letter case).
const (
	CodeInvalidParams   = "INVALID_PARAMS"   // bad arguments, or an edit that does not apply to the note
	CodeNodeNotFound    = "NODE_NOT_FOUND"   // no note has the ID
	CodeVersionConflict = "VERSION_CONFLICT" // expected_version no longer holds, or the note keeps changing
	CodeProviderError   = "PROVIDER_ERROR"   // the store or the vault failed
)

// ErrorResponse is spec 000's error shape, the text of an isError result.
type ErrorResponse struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody carries the code and a message written for the model; for an
// edit that broke a knowledge base's folder constraint, the problems found
// (the kb toolset's issue objects), as the graph tools give them.
type ErrorBody struct {
	Code           string `json:"code"`
	Message        string `json:"message"`
	CurrentVersion string `json:"current_version,omitempty"` // VERSION_CONFLICT: the note's version now
	Issues         any    `json:"issues,omitempty"`
}

// Messages for failures the model cannot fix by changing its arguments.
// The cause is logged, never shown: it may hold driver text or paths.
const (
	msgProvider  = "the store or the vault failed to answer; try again later"
	msgCancelled = "the request was cancelled or timed out before it finished"
)

// toErrorBody maps an error to a code and a message, and logs what the
// model must not see, once.
func (d Deps) toErrorBody(ctx context.Context, tool string, err error) ErrorBody {
	var argErr *tools.ArgumentError
	var coreArg *core.ArgumentError
	var conflict *noteedit.ConflictError
	var constraint *core.ConstraintError
	var badPath *core.InvalidPathError
	switch {
	case errors.As(err, &constraint):
		return ErrorBody{Code: CodeInvalidParams, Message: constraint.Msg, Issues: constraint.Issues}
	case errors.As(err, &badPath):
		return ErrorBody{Code: CodeInvalidParams, Message: badPath.Error()}
	case errors.As(err, &argErr):
		return ErrorBody{Code: CodeInvalidParams, Message: argErr.Msg}
	case errors.As(err, &coreArg):
		return ErrorBody{Code: CodeInvalidParams, Message: coreArg.Msg}
	case errors.As(err, &conflict):
		return ErrorBody{Code: CodeVersionConflict, CurrentVersion: conflict.Current,
			Message: "the note changed since the version given (expected_version); read it again (get_node), make the edit against what it holds now and pass current_version, or leave expected_version out to apply the edit to whatever is there"}
	case errors.Is(err, core.ErrConflict):
		return ErrorBody{Code: CodeVersionConflict, Message: "the note kept changing on disk while the edit was applied, so nothing was written; try again in a moment"}
	case errors.Is(err, core.ErrNotFound):
		return ErrorBody{Code: CodeNodeNotFound, Message: "no note has this ID; find it with search, search_by_tags or get_node (an ID is the note's path, such as \"folder/Note.md\")"}
	case errors.Is(err, core.ErrInvalidPath):
		return ErrorBody{Code: CodeInvalidParams, Message: "the path is not allowed: use a note's path inside the vault, without '..'"}
	case errors.Is(err, core.ErrInvalidArgument):
		d.logger().InfoContext(ctx, "tool argument refused", "tool", tool, "toolset", tools.ToolsetEdit, "err", err)
		return ErrorBody{Code: CodeInvalidParams, Message: "the arguments were refused as invalid"}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return ErrorBody{Code: CodeProviderError, Message: msgCancelled}
	default:
		tools.LogUnforeseen(ctx, d.logger(), tool, tools.ToolsetEdit, err) // no mapping: a failure we did not foresee
		return ErrorBody{Code: CodeProviderError, Message: tools.ProviderMessage(err, msgProvider)}
	}
}
