package kb

import "fmt"

// Error codes of spec 002. Every failure a caller can act on is an *Error
// carrying one of them; anything else (a file system that fails, a
// cancelled context) is a plain error wrapping its cause.
const (
	CodeKnowledgeBaseNotFound      = "knowledge_base_not_found"
	CodeKnowledgeBaseAlreadyExists = "knowledge_base_already_exists"
	CodeFolderConstraintViolation  = "folder_constraint_violation"
	CodeNoteNotFound               = "note_not_found"
	CodeNoteAlreadyExists          = "note_already_exists"
	CodeInvalidNotePath            = "invalid_note_path"
	CodeSchemaValidationFailed     = "schema_validation_failed"
	CodeSubfolderOverlap           = "subfolder_overlap"
	CodeVersionConflict            = "version_conflict"
)

// Error is a failure with a spec 002 code and a message written for the
// caller (a model): it says what was wrong and what to do instead.
type Error struct {
	Code    string
	Message string
	// Constraint and Issues are set for folder_constraint_violation: the
	// constraint that refused the note and what it found wrong.
	Constraint *ConstraintRef
	Issues     []Issue
	// CurrentVersion is set for version_conflict: the note's version now.
	CurrentVersion string
}

// Error implements error.
func (e *Error) Error() string { return "kb: " + e.Code + ": " + e.Message }

// newError returns an *Error with a formatted message.
func newError(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}
