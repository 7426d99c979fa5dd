package entity

import (
	"context"

	"github.com/vaultgraph/vaultgraph/core"
)

// Annotator is a core.GraphStore that derives every written note's entity
// before passing the note on: give it to the vault mirror in place of the
// store, and every note reaches the store with its Entity set (or cleared),
// in the same write.
type Annotator struct {
	core.GraphStore
	Options Options
	// Warn receives the warnings of notes that declare an entity type but
	// have invalid values; nil drops them.
	Warn func(msgs ...string)
}

// NewAnnotator wraps store. The result is a core.StagedWriter when store
// is one.
func NewAnnotator(store core.GraphStore, opts Options, warn func(msgs ...string)) core.GraphStore {
	a := &Annotator{GraphStore: store, Options: opts, Warn: warn}
	if staged, ok := store.(core.StagedWriter); ok {
		return &stagedAnnotator{Annotator: a, staged: staged}
	}
	return a
}

// UpsertNotes derives the entity of each note, then upserts the notes.
// The caller's slice is not modified.
func (a *Annotator) UpsertNotes(ctx context.Context, project string, notes []core.Note) error {
	return a.GraphStore.UpsertNotes(ctx, project, a.annotate(project, notes))
}

// stagedAnnotator is an Annotator of a core.StagedWriter.
type stagedAnnotator struct {
	*Annotator
	staged core.StagedWriter
}

// UpsertNotesStaged derives the entity of each note, then writes the notes
// with the wrapped store's staged write.
func (a *stagedAnnotator) UpsertNotesStaged(ctx context.Context, project string, notes []core.Note, progress func(int)) error {
	return a.staged.UpsertNotesStaged(ctx, project, a.annotate(project, notes), progress)
}

// annotate returns copies of notes with their entities derived, passing
// the warnings on.
func (a *Annotator) annotate(project string, notes []core.Note) []core.Note {
	out := make([]core.Note, len(notes))
	var warnings []string
	for i := range notes {
		out[i] = notes[i]
		e, w := Derive(project, &out[i], a.Options)
		out[i].Entity = e
		warnings = append(warnings, w...)
	}
	if len(warnings) > 0 && a.Warn != nil {
		a.Warn(warnings...)
	}
	return out
}
