package vault

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// ForeignSyncError is a first sync's refusal to delete notes of a project
// whose last full sync ran on another host or from another vault path
// (issue 44.8): two hosts whose vaults share an identity (a copied
// .vaultgraph/vault.json) but not their notes would otherwise erase each
// other's notes in a shared store, silently, at every sync. Nothing was
// written. It is not a provider error: retrying does not help.
type ForeignSyncError struct {
	Project string
	Last    core.SyncOrigin // where the project was last synced from
	Here    core.SyncOrigin // this sync
	Deletes int             // notes of the store this sync would delete
	Sample  []string        // a few of their IDs
}

func (e *ForeignSyncError) Error() string {
	return fmt.Sprintf("vault: sync refused: project %q was last synced from %s (first at %s), this sync runs from %s and would delete %d of its notes that are not in this vault (%s). Nothing was written. "+
		"If this vault is the one to keep, sync again with --force (or set sync.allow_foreign_deletes: true); if both vaults are to be kept, give this one its own project (sync --adopt, or remove its .vaultgraph/vault.json so that it gets a new identity)",
		e.Project, originText(e.Last), e.Last.At.UTC().Format(time.RFC3339), originText(e.Here), e.Deletes, strings.Join(e.Sample, ", "))
}

func originText(o core.SyncOrigin) string { return o.Host + ":" + o.Path }

// sameOrigin reports whether a and b are the same host and path.
func sameOrigin(a, b core.SyncOrigin) bool { return a.Host == b.Host && a.Path == b.Path }

// here is this sync's origin.
func (m *Mirror) here() core.SyncOrigin {
	return core.SyncOrigin{Host: m.cfg.Host, Path: m.cfg.Root, At: time.Now().UTC()}
}

// checkForeignDeletesLocked refuses a first sync that would delete notes
// (pending deletes) of a project last synced from another host or path,
// unless AllowForeignDeletes. On refusal the mirror is left unloaded
// (nothing queued, an empty index): the next Sync starts over, and
// writers waiting for the first sync fail.
func (m *Mirror) checkForeignDeletesLocked(ctx context.Context) error {
	if m.cfg.Origins == nil || m.cfg.AllowForeignDeletes {
		return nil
	}
	var dels []string
	for id, n := range m.pending {
		if n == nil {
			dels = append(dels, id)
		}
	}
	if len(dels) == 0 {
		return nil
	}
	last, err := m.cfg.Origins.SyncOrigin(ctx, m.cfg.Project)
	if err != nil {
		// The store answered the hashes a moment ago. Without the origin
		// deleting is not safe, and queueing the deletes would apply them
		// unchecked on a retry: the sync stops (not as a provider error,
		// which serve would ride out with the deletes queued).
		m.unloadLocked()
		return fmt.Errorf("vault: sync: cannot read the project's sync origin, so its %d deletes were not made; sync again: %v", len(dels), err)
	}
	here := m.here()
	if last.IsZero() || sameOrigin(last, here) {
		return nil
	}
	slices.Sort(dels)
	refusal := &ForeignSyncError{Project: m.cfg.Project, Last: last, Here: here, Deletes: len(dels), Sample: dels[:min(len(dels), 5)]}
	m.log.Warn("vault: sync refused: it would delete notes of a project last synced from another host or path",
		"project", m.cfg.Project, "last_host", last.Host, "last_path", last.Path, "last_at", last.At,
		"host", here.Host, "path", here.Path, "deletes", len(dels))
	m.unloadLocked()
	return refusal
}

// unloadLocked forgets what a first sync loaded, as if it had not run.
func (m *Mirror) unloadLocked() {
	for p := range m.idx.byPath {
		m.lint.set(p, nil)
	}
	m.idx, m.unread = newIndex(), nil
	m.pending = map[string]*core.Note{}
	m.bodies = map[*core.Note]int{}
	m.ready = false
}

// recordOriginLocked records this sync as the project's last full sync
// (after a first sync that wrote everything) when the store has another
// origin or none; an origin recorded already is left as it is, with the
// time of its first sync. A failure is logged: the next sync records it.
func (m *Mirror) recordOriginLocked(ctx context.Context, err error) {
	if m.cfg.Origins == nil || err != nil || len(m.pending) > 0 {
		return
	}
	here := m.here()
	if last, err := m.cfg.Origins.SyncOrigin(ctx, m.cfg.Project); err == nil && sameOrigin(last, here) {
		return // recorded already: a restart writes nothing
	}
	if err := m.cfg.Origins.SaveSyncOrigin(ctx, m.cfg.Project, here); err != nil {
		m.log.Debug("vault: cannot record the sync's origin", "err", err)
	}
}
