package docindex

import (
	"errors"
	"fmt"
)

// Error is a failure the client caused or can fix; Msg is spec 004's
// message ("File not found: /x.md") and is shown to the model as is.
type Error struct {
	Kind error // one of the Err* sentinels
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Is matches the sentinel of the error's kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Kinds of Error.
var (
	ErrFileNotFound = errors.New("file not found")
	ErrUnsupported  = errors.New("unsupported file type")
	ErrReadFailed   = errors.New("failed to read file")
	ErrNotAllowed   = errors.New("path not allowed")
	ErrEmptyQuery   = errors.New("query cannot be empty")
	ErrInvalid      = errors.New("invalid argument")
	ErrEmpty        = errors.New("file is empty")
)

func newError(kind error, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}
