package noteedit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/vaultgraph/vaultgraph/core"
)

// Files is what the Service needs of the vault: a compare-and-swap edit of
// a note by any ID form (vault.Writer.EditNote). edit may run more than
// once, each time on the note's bytes as they are then; path is the
// note's vault-relative path.
type Files interface {
	EditNote(ctx context.Context, id string, edit func(path string, raw []byte) ([]byte, error)) (note *core.Note, before, after []byte, err error)
}

// Check vets an edited note before it is written: path is the note's
// vault-relative path, content its whole new bytes. An error refuses the
// edit (nothing is written) and is returned as it is. It has the shape of
// the knowledge base service's check of the graph tools' writes, so that
// edit_note honours a knowledge base's folder constraints as they do.
type Check func(ctx context.Context, path string, content []byte) error

// Service edits notes of one vault.
type Service struct {
	files Files
	check Check // nil: none
}

// Option configures a Service.
type Option func(*Service)

// WithCheck makes the Service run check on every edit's result before it
// is written.
func WithCheck(check Check) Option { return func(s *Service) { s.check = check } }

// NewService returns a Service writing through files.
func NewService(files Files, opts ...Option) *Service {
	s := &Service{files: files}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Request is one edit of one note.
type Request struct {
	ID string // any ID form the graph tools accept
	Op Op
	// ExpectedVersion, when set, is the note's version the edit was made
	// against (the hex SHA-256 of its file, as edit_note and the kb tools
	// give it): a note that changed since is a *ConflictError, and nothing
	// is written. Without it, an edit is applied again to a note changed
	// meanwhile.
	ExpectedVersion string
}

// Result is an applied edit.
type Result struct {
	ID, Path, Title string
	Changed         bool
	Diff            string // unified diff, "" when nothing changed
	Version         string // the note's version now
}

// ConflictError is an edit refused because the note is no longer at the
// caller's expected version. It matches core.ErrConflict.
type ConflictError struct {
	Expected, Current string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("the note changed since version %s; it is now at version %s", e.Expected, e.Current)
}

// Is makes errors.Is(err, core.ErrConflict) hold.
func (e *ConflictError) Is(target error) bool { return target == core.ErrConflict }

// Version is the version of a note file's bytes.
func Version(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// Edit applies req. Errors: core.ErrNotFound for a missing note, a
// *core.ArgumentError for an edit that does not apply (no such heading,
// old_text not found as often as expected...), a *ConflictError, and what
// the vault's writes give (core.ErrConflict when the note keeps changing,
// provider errors).
func (s *Service) Edit(ctx context.Context, req Request) (*Result, error) {
	if req.ID == "" {
		return nil, core.InvalidArgument("id is empty; give the note's ID or path")
	}
	var applied *Edit
	note, before, after, err := s.files.EditNote(ctx, req.ID, func(path string, raw []byte) ([]byte, error) {
		if req.ExpectedVersion != "" {
			if v := Version(raw); v != req.ExpectedVersion {
				return nil, &ConflictError{Expected: req.ExpectedVersion, Current: v}
			}
		}
		e, err := Apply(raw, req.Op)
		if err != nil {
			return nil, err
		}
		if s.check != nil && e.Changed() {
			// On the bytes about to be written: an edit that breaks the
			// note's folder rules is refused, not written.
			if err := s.check(ctx, path, e.Out); err != nil {
				return nil, err
			}
		}
		applied = e
		return e.Out, nil
	})
	if err != nil {
		return nil, err
	}
	res := &Result{ID: note.ID, Path: note.Path, Title: note.Title, Version: Version(after)}
	if applied != nil && applied.Changed() && string(before) != string(after) {
		res.Changed = true
		res.Diff = Diff(note.Path, before, applied.Spans)
	}
	return res, nil
}
