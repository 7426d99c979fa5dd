package vault

import (
	"context"
	"maps"
	"slices"
)

// A restart keeps the stored targets only when the store is stamped at
// the version it restores (restoreStamped), and every write withdraws the
// stamp: without a stamp when a session ends, the first restart after a
// session that wrote notes resolves every link again (~0.4 CPU-s at 100k
// notes). And a note the store holds with racySize (read too soon after a
// change: what live edits and tool writes usually give) is left out of a
// restore, which then cannot use the stamp. Settle, called when a process
// that held the vault stops, writes those notes again with their sizes
// once their files have settled, and stamps the store when the index
// vouches for every stored note (as a first sync does: stampSyncedLocked).

// storedSize records the size a note was written to the store with: racy
// or not (see Settle).
func (m *Mirror) storedSize(id string, size int64) {
	if size == racySize {
		m.racyNotes[id] = true
	} else {
		delete(m.racyNotes, id)
	}
}

// Settle ends a session over the vault: once Watch has returned (nothing
// else changes the index; it does nothing while anything holds the
// index), it writes again the notes the store holds racy
// whose files have settled, with their sizes (a file whose text changed is
// applied as a change), and stamps the store (core.StatesStamper) if what
// it holds is what the index vouches for: every write since the first
// sync succeeded and nothing waits to be written. Its failures are only
// logged: the next restart then resolves the links again, as without it.
// It does nothing before a first sync or for a store that does not stamp.
func (m *Mirror) Settle(ctx context.Context) {
	if !m.mu.TryLock() {
		// A call or a sync still holds the index (a stop that did not
		// wait for it): a stop must not wait, and nothing is stamped.
		return
	}
	defer m.mu.Unlock()
	if !m.ready || !m.agrees || len(m.pending) > 0 || m.stamper() == nil {
		return
	}
	var changes []fileChange
	for _, id := range slices.Sorted(maps.Keys(m.racyNotes)) {
		e := m.idx.byID[id]
		if e == nil {
			continue
		}
		p, st, err := m.load(e.path)
		if err != nil || st.racy {
			continue // still racy, or gone: stored as it is, left to the next start
		}
		if p.note.Hash != e.hash {
			changes = append(changes, fileChange{path: e.path, parsed: p, stat: st})
			continue
		}
		e.setStat(st)
		m.pending[id] = m.noteOf(e, p)
	}
	if len(changes) > 0 {
		m.applyLocked(ctx, changes)
	}
	var err error
	if len(m.pending) > 0 {
		var res flushResult
		res, err = m.flushLocked(ctx, noProgress{})
		m.log.Debug("vault: settled notes written at the end of the session", "written", res.written, "deleted", res.deleted, "err", err)
	}
	m.stampSyncedLocked(ctx, err)
}
