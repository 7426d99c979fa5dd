// Package activity keeps a project's change log and answers from it: the
// Recorder writes what the vault mirror tells it (every note created,
// modified, renamed or deleted, by a tool or outside vaultgraph) into the
// store's log (core.ChangeLog), and the Service pages it, newest first,
// with a one-line summary of each change (recent_changes).
package activity

import (
	"context"
	"log/slog"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// Store is what the Recorder needs of the store: the log, and the titles
// of notes about to be deleted.
type Store interface {
	core.ChangeLog
	ResolveTitles(ctx context.Context, project string, ids []string) (map[string]string, error)
}

// Bounds of the Recorder.
const (
	// maxQueued caps the changes kept while the store refuses them; the
	// oldest are dropped beyond it (logged), since the vault is the
	// source of truth and the log only an aid.
	maxQueued = 10_000
	// pruneEvery is how often the log is pruned to its bounds
	// (core.ChangeLogMaxAge, core.ChangeLogMaxEntries).
	pruneEvery = time.Hour
)

// Recorder writes a project's note changes to the store's change log. Its
// Record method is vault.Config.Changes. It is safe for concurrent use.
type Recorder struct {
	project string
	store   Store
	log     *slog.Logger
	now     func() time.Time

	// forgetActors drops who made each change before it is logged
	// (changes.record_actor off).
	forgetActors bool

	mu        sync.Mutex
	queue     []core.NoteChange // not written yet: the store failed
	lastPrune time.Time
	dropped   int
}

// NewRecorder returns the Recorder of project's log in store.
func NewRecorder(project string, store Store, logger *slog.Logger) *Recorder {
	if logger == nil {
		logger = slog.Default()
	}
	return &Recorder{project: project, store: store, log: logger, now: time.Now}
}

// ForgetActors makes r log changes without who made them; call it
// before the first Record.
func (r *Recorder) ForgetActors() { r.forgetActors = true }

// Record logs changes (the vault mirror's, in the order they happened):
// each gets its key, a deleted note the title the store still has for it
// (the mirror tells a delete before it writes it to the store), and the
// whole queue is written at once. A store that fails keeps them queued
// for the next Record or Flush; nothing here fails the write that made
// the change.
func (r *Recorder) Record(ctx context.Context, changes []core.NoteChange) {
	if len(changes) == 0 {
		return
	}
	changes = append([]core.NoteChange(nil), changes...)
	var gone []string
	for i := range changes {
		c := &changes[i]
		c.Key = core.ChangeKey(c.At)
		if r.forgetActors {
			c.Actor = core.Actor{}
		}
		if c.Kind == core.ChangeDeleted && c.Title == "" {
			gone = append(gone, c.ID)
		}
	}
	if len(gone) > 0 {
		titles, err := r.store.ResolveTitles(ctx, r.project, gone)
		if err != nil {
			r.log.Debug("activity: titles of deleted notes unknown", "err", err)
		}
		for i := range changes {
			c := &changes[i]
			if c.Kind == core.ChangeDeleted && c.Title == "" {
				if c.Title = titles[c.ID]; c.Title == "" {
					c.Title = strings.TrimSuffix(path.Base(c.Path), path.Ext(c.Path))
				}
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queue = append(r.queue, changes...)
	if over := len(r.queue) - maxQueued; over > 0 {
		r.queue = r.queue[over:]
		r.dropped += over
	}
	_ = r.flushLocked(ctx)
}

// Flush writes the queued changes now; recent_changes calls it before it
// reads, so a change just made is listed.
func (r *Recorder) Flush(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flushLocked(ctx)
}

func (r *Recorder) flushLocked(ctx context.Context) error {
	if r.dropped > 0 {
		r.log.Warn("activity: the store refused the change log for long; older changes were not logged", "dropped", r.dropped)
		r.dropped = 0
	}
	if len(r.queue) > 0 {
		if err := r.store.AppendChanges(ctx, r.project, r.queue); err != nil {
			r.log.Debug("activity: change log not written; kept for the next try", "queued", len(r.queue), "err", err)
			return err
		}
		r.queue = r.queue[:0]
	}
	if now := r.now(); now.Sub(r.lastPrune) >= pruneEvery {
		n, err := r.store.PruneChanges(ctx, r.project, now.Add(-core.ChangeLogMaxAge), core.ChangeLogMaxEntries)
		if err != nil {
			r.log.Debug("activity: change log not pruned", "err", err)
			return nil // the next flush tries again
		}
		r.lastPrune = now
		if n > 0 {
			r.log.Debug("activity: change log pruned", "deleted", n)
		}
	}
	return nil
}
