package vault

import (
	"context"
	"fmt"
	"time"
)

// SyncStats summarises a Sync.
type SyncStats struct {
	Notes      int           // note files in the vault
	Links      int           // links of those notes
	Unresolved int           // links that resolve to no note
	Warnings   int           // warnings reported
	Read       int           // note files read (and hashed) by this sync
	Written    int           // notes written to the store
	Deleted    int           // notes deleted from the store
	Duration   time.Duration // wall time
}

// Sync makes the store equal to the vault. The first call reads and parses
// every note (Config.Workers at a time), resolves links, compares content
// hashes with the store's (GraphReader.NoteHashes) and writes only notes
// that are new or changed, or whose links resolve differently because a
// note they could resolve to was added or removed; store notes without a
// file are deleted. When the store already holds the project (a restart),
// the first call instead rebuilds the index from the store's note states
// (restore.go) and reads only the files whose size or mtime differ from
// the store's: a restart on an unchanged vault reads no note file and
// writes nothing. Later calls rescan, reading only files whose size or
// mtime changed.
//
// When the store fails, Sync returns the error (a core.ProviderError from
// the store, wrapped) with the vault fully loaded: the changes stay queued
// and Watch, or the next Sync or write, applies them.
func (m *Mirror) Sync(ctx context.Context) (SyncStats, error) {
	start := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	readBefore := m.filesRead.Load()
	var stats SyncStats
	var err error
	if m.ready {
		stats, err = m.reconcileLocked(ctx, nil)
	} else {
		m.lintQuiet = true
		stats, err = m.initialSyncLocked(ctx)
		m.lintQuiet = false
		if m.ready {
			// The vault is loaded (the store may have failed): its
			// problems are logged once, those new since the last start.
			m.lint.takeChanged()
			m.reportLintLocked(true)
		}
		// Writers waiting for the first sync go on (m.mu is still held):
		// they write, or fail with errNotLoaded when it could not load.
		m.syncedOnce.Do(func() { close(m.synced) })
		if !m.idx.linkers.settled() && m.cfg.Live {
			// A restore or a streamed sync left the linkers to build:
			// built now, after this sync, rather than by the first
			// write that needs them. A process that only syncs leaves
			// them to a first use, which it seldom has.
			go m.settleLinkers()
		}
	}
	if m.early != nil && !m.early.caughtUp {
		// Live mode starts from this sync's watches; it catches up by a
		// rescan only when this sync did not finish.
		m.early.caughtUp = err == nil
	}
	stats.Duration = time.Since(start)
	stats.Read = int(m.filesRead.Load() - readBefore)
	m.countLocked(&stats)
	if obs := m.cfg.Observer; obs != nil {
		if err != nil {
			obs.SyncFailed(m.cfg.Project)
		} else {
			obs.SyncDone(m.cfg.Project, SyncFull, stats.Written, stats.Deleted, stats.Duration)
		}
	}
	if err != nil {
		return stats, err
	}
	m.log.Info("vault: sync done",
		"notes", stats.Notes, "links", stats.Links, "unresolved", stats.Unresolved,
		"warnings", stats.Warnings, "read", stats.Read, "written", stats.Written, "deleted", stats.Deleted,
		"seconds", stats.Duration.Seconds())
	return stats, nil
}

func (m *Mirror) initialSyncLocked(ctx context.Context) (SyncStats, error) {
	var stats SyncStats
	if err := m.recoverJournal(ctx); err != nil {
		return stats, fmt.Errorf("vault: sync: finish interrupted renames: %w", err)
	}
	phase := time.Now()
	done := func(name string, args ...any) { // where a first sync's time goes, at debug level
		m.log.Debug("vault: sync phase", append([]any{"phase", name, "seconds", time.Since(phase).Seconds()}, args...)...)
		phase = time.Now()
	}
	// The walk (file system calls) runs beside the restore from the
	// store (the store's load and the index, CPU): on two cores a restart
	// costs the longer of the two, not their sum. The walk touches
	// nothing the restore does (the index, the lint).
	type walked struct {
		files []fileStat
		err   error
		took  time.Duration
	}
	walkDone := make(chan walked, 1)
	onDir := m.startEarlyWatchLocked()
	go func() {
		start := time.Now()
		files, err := m.walk("", onDir)
		walkDone <- walked{files, err, time.Since(start)}
	}()
	waitWalk := func() ([]fileStat, error) {
		w := <-walkDone
		if w.err != nil {
			m.stopEarlyWatchLocked()
			return nil, fmt.Errorf("vault: sync: %w", w.err)
		}
		m.log.Debug("vault: sync phase", "phase", "walk", "seconds", w.took.Seconds(), "files", len(w.files))
		return w.files, nil
	}
	if !m.cfg.Rewrite {
		restored, stale, racy, err := m.restoreLocked(ctx)
		switch {
		case err != nil:
			// The store is down or cannot say: read everything, and let
			// the hash comparison below report the store's failure.
			m.log.Debug("vault: cannot read note states from the store", "err", err)
		case restored > 0:
			done("restore from the store", "notes", restored, "stale", len(stale))
			files, err := waitWalk()
			if err != nil {
				// As before the restore: the next Sync starts over.
				for p := range m.idx.byPath {
					m.lint.set(p, nil)
				}
				m.idx, m.unread = newIndex(), nil
				return stats, err
			}
			done("wait for the walk")
			return m.restartLocked(ctx, files, stale, racy)
		}
	}
	files, err := waitWalk()
	if err != nil {
		return stats, err
	}
	phase = time.Now()
	if m.streams() {
		// Into a store without the project's notes, the notes are
		// written as they are read (stream.go); a store that holds some
		// (a restore that failed, Rewrite) is compared first, below.
		if hashes, err := m.cfg.Store.NoteHashes(ctx, m.cfg.Project); err == nil && len(hashes) == 0 {
			// Every note the store will hold is written from the index.
			m.agrees = true
			stats, err := m.streamLocked(ctx, files, done)
			m.stampSyncedLocked(ctx, err)
			m.recordOriginLocked(ctx, err)
			return stats, err
		}
	}
	bar := m.newProgress(len(files), "reading notes")
	changes, err := m.loadAll(ctx, files, bar)
	bar.Finish()
	if err != nil {
		return stats, fmt.Errorf("vault: sync: %w", err)
	}
	done("read and parse")
	_, stats.Warnings = m.applyLocked(ctx, changes)
	m.ready, m.unread = true, nil
	done("index and resolve")

	hashes, err := m.cfg.Store.NoteHashes(ctx, m.cfg.Project)
	if err != nil {
		return stats, m.storeFailed(fmt.Errorf("vault: sync: read store hashes: %w", err))
	}
	// Into a store without the project's notes every note is written
	// from the index; notes the store held already and are not written
	// again keep targets this index did not check.
	m.agrees = len(hashes) == 0
	m.dropUnchangedLocked(hashes, nil)
	m.storeDiffLocked(ctx, hashes)
	done("compare with the store", "stored", len(hashes))
	if err := m.checkForeignDeletesLocked(ctx); err != nil {
		return stats, err
	}
	bar = m.newProgress(m.pendingUpserts(), "writing notes")
	res, err := m.flushLocked(ctx, bar)
	bar.Finish()
	done("write", "written", res.written)
	stats.Written, stats.Deleted = res.written, res.deleted
	m.stampSyncedLocked(ctx, err)
	m.recordOriginLocked(ctx, err)
	return stats, err
}

// restartLocked finishes a first sync whose index was restored from the
// store (restoreLocked): the files that changed since the store wrote them
// are applied as a rescan applies them, then the store is compared and
// written as usual.
func (m *Mirror) restartLocked(ctx context.Context, files []fileStat, stale []*entry, racy map[string]bool) (SyncStats, error) {
	var stats SyncStats
	phase := time.Now()
	m.ready = true
	// A restore that took every stored note checked every stored link
	// (or found them stamped); what it found stale is written again.
	m.agrees = m.restore != restoreResolved
	changes := m.scanChangesLocked("", files)
	_, stats.Warnings = m.applyLocked(ctx, changes)
	m.unread = nil
	m.log.Debug("vault: sync phase", "phase", "apply the changes", "seconds", time.Since(phase).Seconds(), "changed", len(changes))
	hashes, err := m.cfg.Store.NoteHashes(ctx, m.cfg.Project)
	if err != nil {
		return stats, m.storeFailed(fmt.Errorf("vault: sync: read store hashes: %w", err))
	}
	// A racy note read again with its text unchanged is not rewritten
	// (see racyWindow). Into a store that stamps, it is once its file is
	// no longer racy, with its size: a racy state keeps every restart
	// from stamping (restoreLocked leaves it out), so a note a tool wrote
	// would otherwise keep the stamp away until its text changed. The
	// repairs below are written whatever their text.
	settle := m.stamper() != nil
	m.dropUnchangedLocked(hashes, func(id string) bool {
		return racy[id] && (!settle || m.pending[id].Size == racySize)
	})
	m.requeueLocked(ctx, stale)
	m.storeDiffLocked(ctx, hashes)
	if err := m.checkForeignDeletesLocked(ctx); err != nil {
		return stats, err
	}
	bar := m.newProgress(m.pendingUpserts(), "writing notes")
	res, err := m.flushLocked(ctx, bar)
	bar.Finish()
	stats.Written, stats.Deleted = res.written, res.deleted
	if m.restore != restoreStamped || res.written+res.deleted > 0 {
		// A stamped store not written since keeps its stamp.
		m.stampSyncedLocked(ctx, err)
	}
	m.recordOriginLocked(ctx, err)
	return stats, err
}

// dropUnchangedLocked removes from the queue the notes the store already
// has with the same content (when only is not nil, just those it
// accepts), unless one of their links is on a key whose candidates
// changed since the store was written (a note answering to it was added
// or removed), which can change what the link resolves to.
func (m *Mirror) dropUnchangedLocked(hashes map[string]string, only func(id string) bool) {
	if m.cfg.Rewrite || len(m.pending) == 0 {
		return // nothing to drop (a restart of an unchanged vault)
	}
	dirty := map[string]bool{}
	for id := range m.idx.byID {
		if _, ok := hashes[id]; !ok {
			markAll(dirty, NoteKeys(id))
		}
	}
	for id := range hashes {
		if m.idx.byID[id] == nil {
			markAll(dirty, NoteKeys(id))
		}
	}
	for id, n := range m.pending {
		if n == nil || hashes[id] != n.Hash || only != nil && !only(id) {
			continue
		}
		keep := false
		for _, l := range n.Links {
			if dirty[l.Key] {
				keep = true
				break
			}
		}
		if !keep {
			delete(m.pending, id)
		}
	}
}

// storeDiffLocked queues what the store has wrong compared with the index:
// notes it holds that the vault has not (deleted), and notes whose hash
// differs or that it lacks (read again and written).
func (m *Mirror) storeDiffLocked(ctx context.Context, hashes map[string]string) {
	for id := range hashes {
		if _, queued := m.pending[id]; !queued && m.idx.byID[id] == nil {
			m.pending[id] = nil
		}
	}
	var stale []fileChange
	for id, e := range m.idx.byID {
		if _, queued := m.pending[id]; queued || hashes[id] == e.hash {
			continue
		}
		p, st, err := m.load(e.path)
		if err != nil {
			m.loadFailed(e.path, err)
			m.agrees = false // the store keeps another text than the index's
			continue
		}
		if p.note.Hash == e.hash {
			m.pending[id] = m.noteOf(e, p)
			continue
		}
		stale = append(stale, fileChange{path: e.path, parsed: p, stat: st})
	}
	if len(stale) > 0 {
		m.applyLocked(ctx, stale)
	}
}

// reconcileLocked rescans the vault, applies what changed since the index
// was built (reading only files whose size or mtime differ), then compares
// the index with the store and repairs the difference. onDir is passed to
// walk (live mode watches every folder it sees).
func (m *Mirror) reconcileLocked(ctx context.Context, onDir func(string)) (SyncStats, error) {
	var stats SyncStats
	var err error
	if stats.Warnings, err = m.rescanLocked(ctx, onDir); err != nil {
		return stats, fmt.Errorf("vault: reconcile: %w", err)
	}
	m.unread = nil

	hashes, err := m.cfg.Store.NoteHashes(ctx, m.cfg.Project)
	if err != nil {
		return stats, m.storeFailed(fmt.Errorf("vault: reconcile: read store hashes: %w", err))
	}
	m.storeDiffLocked(ctx, hashes)
	res, err := m.flushLocked(ctx, noProgress{})
	stats.Written, stats.Deleted = res.written, res.deleted
	return stats, err
}

// rescanLocked walks the whole vault (onDir sees each folder before it is
// read) and applies what changed since the index was built, reading only
// the files whose size or mtime differ or that were read too soon after a
// change. It queues the store writes; it does not compare with the store.
func (m *Mirror) rescanLocked(ctx context.Context, onDir func(string)) (warnings int, err error) {
	files, err := m.walk("", onDir)
	if err != nil {
		return 0, err
	}
	_, warnings = m.applyLocked(ctx, m.scanChangesLocked("", files))
	return warnings, nil
}

// scanChangesLocked compares the files found at and below the folder under
// with the index: new files and files whose size or mtime changed are read
// and parsed; indexed files no longer found are gone.
func (m *Mirror) scanChangesLocked(under string, files []fileStat) []fileChange {
	var changes []fileChange
	found := 0 // indexed paths among files (a walk lists each path once)
	for _, f := range files {
		e := m.idx.byPath[f.path]
		if e != nil {
			found++
		}
		if e != nil && e.unchanged(f) {
			continue
		}
		known := ""
		if e != nil {
			known = e.hash
		}
		c, err := m.read(f.path, known)
		if err != nil {
			m.loadFailed(f.path, err)
			continue
		}
		changes = append(changes, c)
	}
	if under == "" && found == len(m.idx.byPath) {
		// Every indexed note was found: none is gone. A restart of an
		// unchanged vault ends here, without a set of 100k paths.
		return changes
	}
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		seen[f.path] = true
	}
	for p := range m.idx.byPath {
		if !seen[p] && isUnder(p, under) {
			changes = append(changes, fileChange{path: p})
		}
	}
	return changes
}

// isUnder reports whether vault-relative path p is below folder dir.
func isUnder(p, dir string) bool {
	return dir == "" || len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
}

// countLocked fills the vault totals of stats.
func (m *Mirror) countLocked(stats *SyncStats) {
	stats.Notes = len(m.idx.byPath)
	stats.Links, stats.Unresolved = 0, 0
	for _, e := range m.idx.byPath {
		stats.Links += len(e.links)
		for _, l := range e.links {
			if l.target == "" {
				stats.Unresolved++
			}
		}
	}
}

func (m *Mirror) pendingUpserts() int {
	n := 0
	for _, note := range m.pending {
		if note != nil {
			n++
		}
	}
	return n
}

// settleLinkers builds the index's linkers that a restore left to build
// (linkers.buildLater), once nothing else holds the index.
func (m *Mirror) settleLinkers() {
	m.mu.Lock()
	build := m.idx.linkers.buildOutside()
	m.mu.Unlock()
	if build == nil {
		return
	}
	build() // without the lock: reads and writes that need it go on
	m.mu.Lock()
	defer m.mu.Unlock()
	m.idx.linkers.settle()
}
