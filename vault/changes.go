package vault

import (
	"context"
	"sort"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// The change log hook (Config.Changes). applyLocked sees every note file
// that was created, changed or removed, whoever did it (a tool's write,
// an editor, a sync client), so it is where changes are told. A rename is
// a removal and a creation to applyLocked: a tool's rename says so
// (fileChange.movedTo), and a note that vanished while another with the
// same content appeared in the same burst of file events is taken for a
// rename done outside (a file manager, git mv, Obsidian).

// noteChanges collects what one applyLocked call saw.
type noteChanges struct {
	removed []goneNote
	changed []writtenNote
}

type goneNote struct {
	path, id, hash, movedTo string
	size                    int64
}

type writtenNote struct {
	e          *entry // nil until applyLocked made it: a new note
	c          fileChange
	sizeBefore int64
}

// deleted records that the note of e is gone (to movedTo by a rename).
func (s *noteChanges) deleted(e *entry, movedTo string) {
	s.removed = append(s.removed, goneNote{path: e.path, id: e.id, hash: e.hash, movedTo: movedTo, size: knownSize(e.size)})
}

// written records a note file with new content; e is its entry before
// the change (nil for a new note).
func (s *noteChanges) written(e *entry, c fileChange) {
	w := writtenNote{e: e, c: c, sizeBefore: -1}
	if e != nil {
		w.sizeBefore = knownSize(e.size)
	}
	s.changed = append(s.changed, w)
}

func knownSize(n int64) int64 { return max(n, -1) }

// reportChanges tells Config.Changes what applyLocked saw, once the
// index holds the new IDs. Nothing is told before the first sync has
// loaded the vault: every note is "new" to an empty index.
func (m *Mirror) reportChanges(ctx context.Context, s *noteChanges) {
	if m.cfg.Changes == nil || !m.ready || len(s.removed)+len(s.changed) == 0 {
		return
	}
	now := time.Now()
	// A tool's write carries its caller (core.WithActor); anything else
	// the mirror sees was done outside vaultgraph.
	actor, ok := core.ActorFrom(ctx)
	if !ok {
		actor = core.ActorOutside
	}
	var out []core.NoteChange
	var created []int // indexes in out of the new notes, in path order
	for _, w := range s.changed {
		e := m.idx.byPath[w.c.path]
		if e == nil {
			continue // gone again in the same batch
		}
		ch := core.NoteChange{
			Kind: core.ChangeModified, ID: e.id, Path: e.path, Title: w.c.parsed.note.Title, Hash: e.hash,
			SizeBefore: w.sizeBefore, SizeAfter: knownSize(w.c.stat.size),
			// The file's own time says when it changed (a change found
			// at a start happened earlier), never later than now.
			At: now,
		}
		if mt := w.c.stat.mtime; !mt.IsZero() && mt.Before(now) {
			ch.At = mt
		}
		if w.e == nil {
			if hash, ok := m.unread[e.path]; ok {
				// In the store already, read too soon after a change to
				// be restored (restoreLocked): not a new note.
				if hash == e.hash {
					continue
				}
			} else {
				ch.Kind = core.ChangeCreated
				created = append(created, len(out))
			}
		}
		out = append(out, ch)
	}
	sort.Slice(created, func(i, j int) bool { return out[created[i]].Path < out[created[j]].Path })
	// A note gone where a rename moved it, or gone while a new note with
	// its content appeared, was renamed: one change, not two.
	renamedTo := func(g goneNote) int {
		for _, i := range created {
			if out[i].OldPath == "" && out[i].Path == g.movedTo {
				return i
			}
		}
		for _, i := range created {
			if out[i].OldPath == "" && g.movedTo == "" && g.hash != "" && out[i].Hash == g.hash {
				return i
			}
		}
		return -1
	}
	for _, g := range s.removed {
		if i := renamedTo(g); i >= 0 {
			c := &out[i]
			c.Kind, c.OldID, c.OldPath, c.SizeBefore = core.ChangeRenamed, g.id, g.path, g.size
			// A moved file keeps its modification time: the rename
			// happened now, not when the content last changed.
			c.At = now
			continue
		}
		out = append(out, core.NoteChange{Kind: core.ChangeDeleted, ID: g.id, Path: g.path, At: now, SizeBefore: g.size, SizeAfter: -1})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	for i := range out {
		out[i].Actor = actor
	}
	m.cfg.Changes(ctx, out)
}
