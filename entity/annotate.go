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
	return a.GraphStore.UpsertNotes(ctx, project, a.annotate(ctx, project, notes))
}

// stagedAnnotator is an Annotator of a core.StagedWriter.
type stagedAnnotator struct {
	*Annotator
	staged core.StagedWriter
}

// UpsertNotesStaged derives the entity of each note, then writes the notes
// with the wrapped store's staged write.
func (a *stagedAnnotator) UpsertNotesStaged(ctx context.Context, project string, notes []core.Note, progress func(int)) error {
	return a.staged.UpsertNotesStaged(ctx, project, a.annotate(ctx, project, notes), progress)
}

// annotate returns copies of notes with their entities derived, passing
// the warnings on: to the call that made the write (its _warnings) and
// to Warn. An entity without a frontmatter createdAt keeps the createdAt
// the store holds for it (the first time the note was seen, persisted with
// it), so the date does not follow the file's mtime on every edit; a new
// one starts at the derived value (its updatedAt).
func (a *Annotator) annotate(ctx context.Context, project string, notes []core.Note) []core.Note {
	out := make([]core.Note, len(notes))
	var warnings []string
	reader := a.Options.Entities
	if reader == nil {
		reader, _ = a.GraphStore.(EntityReader)
	}
	for i := range notes {
		out[i] = notes[i]
		e, w := Derive(project, &out[i], a.Options)
		if _, given := out[i].Frontmatter["createdAt"]; e != nil && !given && reader != nil {
			if prev, err := reader.GetEntity(ctx, project, e.ID); err == nil && prev.CreatedAt.Before(e.CreatedAt) {
				e.CreatedAt = prev.CreatedAt
			}
		}
		out[i].Entity = e
		warnings = append(warnings, w...)
	}
	core.AddCallWarnings(ctx, warnings...)
	if len(warnings) > 0 && a.Warn != nil {
		a.Warn(warnings...)
	}
	return out
}
