package entity

import (
	"context"
	"fmt"
	"strings"

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

// NewAnnotator wraps store. The result is a core.StagedWriter
// (core.StagedStreamer) when store is one.
func NewAnnotator(store core.GraphStore, opts Options, warn func(msgs ...string)) core.GraphStore {
	a := &Annotator{GraphStore: store, Options: opts, Warn: warn}
	if streamer, ok := store.(core.StagedStreamer); ok {
		return &streamAnnotator{stagedAnnotator: &stagedAnnotator{Annotator: a, staged: streamer}, streamer: streamer}
	}
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

// streamAnnotator is an Annotator of a core.StagedStreamer.
type streamAnnotator struct {
	*stagedAnnotator
	streamer core.StagedStreamer
}

// BeginStaged starts the wrapped store's stream, each part's notes
// annotated before they are written.
func (a *streamAnnotator) BeginStaged(ctx context.Context, project string, progress func(int)) (core.StagedStream, error) {
	st, err := a.streamer.BeginStaged(ctx, project, progress)
	if err != nil {
		return nil, err
	}
	return core.HookStagedStream(st, func(ctx context.Context, notes []core.Note) []core.Note {
		return a.annotate(ctx, project, notes)
	}, nil), nil
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
	warnings = append(warnings, a.checkRelationTargets(ctx, project, out)...)
	core.AddCallWarnings(ctx, warnings...)
	if len(warnings) > 0 && a.Warn != nil {
		a.Warn(warnings...)
	}
	return out
}

// checkRelationTargets reports each relationship of notes whose target is
// not an entity of the type its relationship type names
// (GUIDE_USES_CONCEPT to a guide, or to a note with no entity): the
// original system kept to those pairs. The relationship is kept as
// written: the target may become the right type in a later edit, and a
// note's relations are the user's to fix (docs/DECISIONS.md, "Entity
// relations to the wrong type"). A target written in the same batch is
// judged by its new entity; any other is read from the store, in one call.
// Unresolved targets are the vault's broken links, reported there.
func (a *Annotator) checkRelationTargets(ctx context.Context, project string, notes []core.Note) []string {
	type check struct {
		note   *core.Note
		rel    core.RelationLink
		target string
	}
	var checks []check
	batch := make(map[string]*core.NoteEntity, len(notes))
	for i := range notes {
		batch[notes[i].ID] = notes[i].Entity
	}
	var missing []string
	asked := map[string]bool{}
	for i := range notes {
		n := &notes[i]
		if n.Entity == nil {
			continue
		}
		for _, r := range n.Entity.Relations {
			target := n.RelationTarget(r.Link)
			if target == "" || !RelationTargetType(r.Type).Valid() {
				continue // broken link, or a kind of record with no entity (sources, videos)
			}
			checks = append(checks, check{n, r, target})
			if _, ok := batch[target]; !ok && !asked[target] {
				asked[target] = true
				missing = append(missing, target)
			}
		}
	}
	if len(checks) == 0 {
		return nil
	}
	stored := map[string]*core.NoteEntity{}
	if len(missing) > 0 {
		// A store that cannot answer leaves those targets unjudged:
		// a warning is not worth failing the write.
		if found, err := a.GraphStore.GetNotes(ctx, project, missing); err == nil {
			for _, t := range found {
				stored[t.ID] = t.Entity
			}
		}
	}
	var warnings []string
	for _, c := range checks {
		e, ok := batch[c.target]
		if !ok {
			if e, ok = stored[c.target]; !ok {
				continue
			}
		}
		want := RelationTargetType(c.rel.Type)
		written := c.note.Links[c.rel.Link].Raw
		switch {
		case e == nil:
			warnings = append(warnings, fmt.Sprintf("%s: entity: relations: %s goes to a %s, and %s is not an entity; the relationship is not in the entity graph", c.note.Path, c.rel.Type, want, written))
		case e.Type != want:
			warnings = append(warnings, fmt.Sprintf("%s: entity: relations: %s goes to a %s, and %s is a %s", c.note.Path, c.rel.Type, want, written, e.Type))
		}
	}
	return warnings
}

// RelationTargetType is the entity type a relationship type ends at: the
// word after its last underscore, lower-cased (GUIDE_USES_CONCEPT:
// concept; GUIDE_REFERENCES_SOURCE: source, which no note can be).
func RelationTargetType(t core.RelationType) core.EntityType {
	s := string(t)
	return core.EntityType(strings.ToLower(s[strings.LastIndex(s, "_")+1:]))
}
