package core

import (
	"errors"
	"fmt"
	"time"
)

// Domain errors. Stores and services wrap them with context
// (fmt.Errorf("memstore: get note %s: %w", id, ErrNotFound)); tools map them
// to their toolset's error codes with errors.Is and errors.As.
var (
	// ErrNotFound: the addressed note, memory, entity or project does not exist.
	ErrNotFound = errors.New("not found")
	// ErrExists: a create would overwrite something that exists.
	ErrExists = errors.New("already exists")
	// ErrInvalidArgument: the caller's input is malformed or out of range.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrInvalidPath: a path escapes its root or is otherwise not allowed.
	// It is an invalid argument too: errors.Is(err, ErrInvalidArgument) holds.
	ErrInvalidPath = fmt.Errorf("invalid path: %w", ErrInvalidArgument)
	// ErrConflict: an optimistic-concurrency check (expected version) failed.
	ErrConflict = errors.New("version conflict")
)

// ProviderError reports that a backing provider (database, file system,
// embedding service) failed. Op names the operation; Err is the cause, kept
// for logs but never shown to a model verbatim.
type ProviderError struct {
	Op  string
	Err error
}

func (e *ProviderError) Error() string { return e.Op + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *ProviderError) Unwrap() error { return e.Err }

// NewProviderError wraps err as a provider failure of op; nil stays nil.
func NewProviderError(op string, err error) error {
	if err == nil {
		return nil
	}
	return &ProviderError{Op: op, Err: err}
}

// IsProviderError reports whether err is, or wraps, a *ProviderError.
func IsProviderError(err error) bool {
	var pe *ProviderError
	return errors.As(err, &pe)
}

// ArgumentError is an invalid argument whose message is meant for the
// caller as it stands (tools show Msg to the model). It matches
// ErrInvalidArgument under errors.Is.
type ArgumentError struct{ Msg string }

func (e *ArgumentError) Error() string { return e.Msg }

// Is makes errors.Is(err, ErrInvalidArgument) hold.
func (e *ArgumentError) Is(target error) bool { return target == ErrInvalidArgument }

// InvalidArgument returns an *ArgumentError with a formatted message.
func InvalidArgument(format string, args ...any) error {
	return &ArgumentError{Msg: fmt.Sprintf(format, args...)}
}

// ConstraintError is a write refused by rules the vault's owner set for
// that place (a knowledge base's folder constraint): Msg says which rules
// and what to change, for the caller as it stands; Issues lists each
// problem (JSON-ready values, shown to the caller as they are). It
// matches ErrInvalidArgument under errors.Is.
type ConstraintError struct {
	Msg    string
	Issues any
}

func (e *ConstraintError) Error() string { return e.Msg }

// Is makes errors.Is(err, ErrInvalidArgument) hold.
func (e *ConstraintError) Is(target error) bool { return target == ErrInvalidArgument }

// UnavailableError says a provider is known to be down: a circuit breaker
// answers at once instead of letting each call wait out its timeout, and
// probes the provider in the background until it answers again. It is
// wrapped in a *ProviderError. Its cause is kept for logs (Error) but not
// unwrapped, so that a timeout that opened the breaker is never mistaken
// for the caller's own cancellation.
type UnavailableError struct {
	Provider string        // e.g. "Neo4j"
	Since    time.Time     // when the breaker opened
	Every    time.Duration // how often the provider is probed
	Cause    error         // the failure that opened the breaker
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("%s unavailable since %s (%v); calls fail at once until it answers a probe (every %s)",
		e.Provider, e.Since.UTC().Format(time.RFC3339), e.Cause, e.Every)
}

// Hint is the message for a caller (a model): what is down and when to
// retry, without the cause's driver text.
func (e *UnavailableError) Hint() string {
	return fmt.Sprintf("the graph store (%s) has not answered since %s UTC; calls fail at once until it answers again (checked every %s): retry in a few seconds",
		e.Provider, e.Since.UTC().Format(time.TimeOnly), e.Every)
}
