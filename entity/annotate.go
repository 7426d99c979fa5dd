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

// NewAnnotator wraps store.
func NewAnnotator(store core.GraphStore, opts Options, warn func(msgs ...string)) *Annotator {
	return &Annotator{GraphStore: store, Options: opts, Warn: warn}
}

// UpsertNotes derives the entity of each note, then upserts the notes.
// The caller's slice is not modified.
func (a *Annotator) UpsertNotes(ctx context.Context, project string, notes []core.Note) error {
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
	return a.GraphStore.UpsertNotes(ctx, project, out)
}
