package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"sort"
	"time"

	"github.com/vaultgraph/vaultgraph/confine"

	"github.com/fsnotify/fsnotify"
)

// Watch runs live mode until ctx is done, then returns nil. It runs Sync
// first when it has not run yet.
//
// Every folder of the vault is watched (fsnotify is not recursive on
// Linux: folders that appear are added). A watch follows its folder's
// inode, not its name, so once a watched folder is moved or removed the
// names of the watches can no longer be trusted (a moved folder reports
// under its old name; adding its new name hands back the old watch, which
// goes when the old name is dropped). Such a burst starts a new
// generation: a fresh watcher over a rescan of the whole vault.
// Events are debounced (Config.Debounce after the last one, at most
// Config.MaxWait after the first) and coalesced per path, then each path
// is looked at as it is now: a note file is read and its hash compared
// (an unchanged file costs nothing: no parse, no write), a missing one is
// deleted, a folder is rescanned. This covers create, write, delete,
// rename and editor saves through a temporary file and a rename. Notes
// whose links resolve differently after a note appeared, moved or went
// are written again.
//
// Every Config.ReconcileInterval the whole vault is rescanned and compared
// with the store, healing what a missed event (or an inotify queue
// overflow, which triggers a rescan at once) left behind. When the store
// fails, changes stay queued and are retried with exponential backoff
// between Config.RetryMin and Config.RetryMax; watching goes on.
//
// When the first Sync started the watches (Config.Live, or Watch's own
// first Sync), Watch starts on them: every folder was watched before the
// walk listed it, so a change since the walk is an event already queued,
// and live mode starts without a rescan of the whole vault.
func (m *Mirror) Watch(ctx context.Context) error {
	m.mu.Lock()
	ready := m.ready
	m.liveNext = !ready
	m.mu.Unlock()
	if !ready {
		if _, err := m.Sync(ctx); err != nil {
			if ctx.Err() != nil {
				m.mu.Lock()
				m.stopEarlyWatchLocked()
				m.mu.Unlock()
				return nil
			}
			var foreign *ForeignSyncError
			if errors.As(err, &foreign) {
				// Retrying would refuse again: the owner must choose.
				m.mu.Lock()
				m.stopEarlyWatchLocked()
				m.mu.Unlock()
				return err
			}
			m.log.Warn("vault: initial sync incomplete; retrying in live mode", "err", err)
		}
	}
	m.mu.Lock()
	lw := m.early
	m.early, m.liveNext = nil, false
	m.mu.Unlock()
	if lw == nil {
		w, err := fsnotify.NewWatcher()
		if err != nil {
			return fmt.Errorf("vault: watch %s: %w", m.cfg.Root, err)
		}
		lw = m.newLiveWatch(w)
	}
	defer func() { lw.w.Close() }()
	m.watching.Add(1)
	defer m.watching.Add(-1)
	return lw.run(ctx)
}

func (m *Mirror) newLiveWatch(w *fsnotify.Watcher) *liveWatch {
	return &liveWatch{m: m, w: w, watched: map[string]bool{}, dirty: map[string]bool{}}
}

// startEarlyWatchLocked starts the watches of live mode for a first Sync
// that Watch follows (see Config.Live) and returns the walk's onDir that
// adds them; nil when live mode does not follow or no watcher can be made
// (Watch then starts its own, with a rescan). m.mu must be held.
func (m *Mirror) startEarlyWatchLocked() func(rel string) {
	m.stopEarlyWatchLocked()
	if !m.cfg.Live && !m.liveNext {
		return nil
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		m.log.Debug("vault: cannot watch the vault during the first sync; live mode rescans it", "err", err)
		return nil
	}
	m.early = m.newLiveWatch(w)
	return m.early.watch
}

// stopEarlyWatchLocked drops the watches startEarlyWatchLocked started.
func (m *Mirror) stopEarlyWatchLocked() {
	if m.early != nil {
		_ = m.early.w.Close()
		m.early = nil
	}
}

// liveWatch is the state of one Watch call; only its goroutine uses it.
type liveWatch struct {
	m       *Mirror
	w       *fsnotify.Watcher
	watched map[string]bool // vault-relative folders with a watch
	dirty   map[string]bool // paths with events not yet applied
	// caughtUp: the watches were added by a first Sync's walk that
	// finished (Config.Live): no rescan is needed to start.
	caughtUp bool
	full     bool // rescan everything (queue overflow)
	moved    bool // a watched folder was moved or removed: rewatch

	firstDirty time.Time
	burstStart time.Time // first event of the burst being applied
	addFailed  bool      // a watch could not be added (already logged)
	storeDown  bool      // a store failure was reported and not yet cleared
}

func (lw *liveWatch) run(ctx context.Context) error {
	m := lw.m
	if !lw.caughtUp || lw.addFailed {
		lw.reconcile(ctx) // watch every folder, and catch up with changes since Sync
	}
	m.liveOnce.Do(func() { close(m.live) })

	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	retrying := false
	backoff := m.cfg.RetryMin
	var reconcile <-chan time.Time
	if m.cfg.ReconcileInterval > 0 {
		t := time.NewTicker(m.cfg.ReconcileInterval)
		defer t.Stop()
		reconcile = t.C
	}
	schedule := func() {
		if lw.firstDirty.IsZero() {
			lw.firstDirty = time.Now()
		}
		wait := min(m.cfg.Debounce, m.cfg.MaxWait-time.Since(lw.firstDirty))
		debounce.Reset(max(wait, 0))
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-lw.w.Events:
			if !ok {
				return nil
			}
			if lw.event(ev) {
				schedule()
			}
		case err, ok := <-lw.w.Errors:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				m.log.Warn("vault: file events were lost; rescanning the vault")
				lw.full = true
				schedule()
			} else {
				m.log.Warn("vault: file watcher error", "err", err)
			}
		case <-debounce.C:
			lw.burstStart, lw.firstDirty = lw.firstDirty, time.Time{}
			if lw.full || lw.moved {
				lw.rewatch(ctx)
			} else {
				lw.apply(ctx)
			}
		case <-reconcile:
			lw.reconcile(ctx)
		case <-m.retry:
			if !retrying {
				retrying = true
				retry.Reset(backoff)
			}
		case <-retry.C:
			retrying = false
			if lw.flush(ctx) {
				backoff = m.cfg.RetryMin
			} else {
				backoff = min(backoff*2, m.cfg.RetryMax)
				retrying = true
				retry.Reset(backoff)
			}
		}
	}
}

// event records a file event and reports whether it is of interest.
// Dot-files (editor swap and temporary files, .obsidian) and ignored paths
// are not. New folders are watched when the burst is applied. A watched
// folder moved or removed marks the burst for a rewatch; so does any name
// moved or removed once a watch could not be added, as that name may have
// been an unwatched folder.
func (lw *liveWatch) event(ev fsnotify.Event) bool {
	rel := lw.m.rel(ev.Name)
	if rel == "" || lw.m.ignore.skip(rel) {
		return false
	}
	if ev.Has(fsnotify.Rename) || ev.Has(fsnotify.Remove) {
		if lw.watched[rel] || lw.addFailed && !isNodePath(rel) {
			lw.moved = true
		}
	}
	lw.dirty[rel] = true
	return true
}

// rewatch starts a new generation of watches: it drops every watch with
// the watcher that holds them (with the events still queued there) and
// rescans the whole vault under a fresh one, watching each folder before
// reading it, so nothing changed since is missed. After lost events (a
// queue overflow) it also compares the index with the store, as the
// periodic reconcile does; a folder moved needs only the vault rescanned.
func (lw *liveWatch) rewatch(ctx context.Context) {
	overflow := lw.full
	lw.full, lw.moved = false, false
	clear(lw.dirty)
	if w, err := fsnotify.NewWatcher(); err != nil {
		lw.m.log.Warn("vault: cannot renew the file watcher; rescanning with the old one", "err", err)
	} else {
		_ = lw.w.Close()
		lw.w = w
		clear(lw.watched)
	}
	if overflow {
		lw.reconcile(ctx)
		return
	}
	m := lw.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.rescanLocked(ctx, lw.watch); err != nil {
		lw.storeResult(err)
		return
	}
	if !m.failing {
		lw.flushLocked(ctx)
	}
}

// watch adds a watch on a vault-relative folder.
func (lw *liveWatch) watch(rel string) {
	if lw.watched[rel] {
		return
	}
	if err := lw.w.Add(lw.m.abs(rel)); err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !lw.addFailed {
			lw.addFailed = true
			lw.m.log.Warn("vault: cannot watch folder; changes there are picked up by the periodic rescan (on Linux, raise fs.inotify.max_user_watches)",
				"path", rel, "err", err)
		}
		return
	}
	lw.watched[rel] = true
}

// apply looks at every dirty path as it is now and applies the changes.
// A folder found is scanned (and watched): it is new, as a burst that
// moved or removed a watched folder is a rewatch instead.
func (lw *liveWatch) apply(ctx context.Context) {
	m := lw.m
	paths := make([]string, 0, len(lw.dirty))
	for p := range lw.dirty {
		paths = append(paths, p)
	}
	clear(lw.dirty)
	sort.Strings(paths)

	m.mu.Lock()
	defer m.mu.Unlock()
	var changes []fileChange
	seen := map[string]bool{}
	add := func(cs ...fileChange) {
		for _, c := range cs {
			if !seen[c.path] {
				seen[c.path] = true
				changes = append(changes, c)
			}
		}
	}
	type present struct {
		rel string
		fi  confine.Info
	}
	var existing []present
	for _, rel := range paths {
		fi, err := m.fs.Stat(rel)
		if err == nil && (fi.IsDir() || fi.IsRegular() && isNodePath(rel)) {
			existing = append(existing, present{rel, fi})
			continue
		}
		// Gone, or now something that is not a note.
		if m.idx.byPath[rel] != nil {
			add(fileChange{path: rel})
		}
	}
	for _, p := range existing {
		if p.fi.IsDir() {
			files, err := m.walk(p.rel, lw.watch)
			if err != nil {
				m.log.Warn("vault: cannot scan folder", "path", p.rel, "err", err)
				continue
			}
			add(m.scanChangesLocked(p.rel, files)...)
			continue
		}
		known := ""
		if e := m.idx.byPath[p.rel]; e != nil {
			known = e.hash
		}
		c, err := m.read(p.rel, known)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			add(fileChange{path: p.rel})
		case err != nil:
			m.loadFailed(p.rel, err)
		default:
			add(c)
		}
	}
	if len(changes) == 0 {
		return
	}
	m.logLiveChangesLocked(changes)
	m.applyLocked(ctx, changes)
	if !m.failing {
		lw.flushLocked(ctx)
	}
}

// reconcile rescans the whole vault, watching every folder, and compares
// it with the store.
func (lw *liveWatch) reconcile(ctx context.Context) {
	m := lw.m
	m.mu.Lock()
	defer m.mu.Unlock()
	stats, err := m.reconcileLocked(ctx, lw.watch)
	lw.storeResult(err)
	if err == nil && (stats.Written > 0 || stats.Deleted > 0) {
		m.log.Info("vault: rescan repaired the store", "written", stats.Written, "deleted", stats.Deleted)
	}
}

// flush retries the queued store changes; it reports success.
func (lw *liveWatch) flush(ctx context.Context) bool {
	lw.m.mu.Lock()
	defer lw.m.mu.Unlock()
	return lw.flushLocked(ctx)
}

func (lw *liveWatch) flushLocked(ctx context.Context) bool {
	m := lw.m
	start := time.Now()
	res, err := m.flushLocked(ctx, noProgress{})
	lw.storeResult(err)
	if obs := m.cfg.Observer; obs != nil {
		switch {
		case err != nil && !ctxDone(err):
			obs.SyncFailed(m.cfg.Project)
		case err == nil && res.written+res.deleted > 0:
			obs.SyncDone(m.cfg.Project, SyncLive, res.written, res.deleted, time.Since(start))
			if !lw.burstStart.IsZero() {
				obs.SyncLag(m.cfg.Project, time.Since(lw.burstStart))
			}
		}
	}
	return err == nil
}

// storeResult logs a store failure once per outage, and its end; other
// errors (a folder that cannot be read) are logged as they come.
func (lw *liveWatch) storeResult(err error) {
	m := lw.m
	switch {
	case err != nil && ctxDone(err):
	case m.failing && !lw.storeDown:
		lw.storeDown = true
		m.log.Warn("vault: store write failed; changes are queued and retried", "pending", len(m.pending), "err", err)
	case !m.failing && lw.storeDown:
		lw.storeDown = false
		m.log.Info("vault: store is back; queued changes applied")
	case err != nil && !m.failing:
		m.log.Warn("vault: rescan failed", "err", err)
	}
}

func ctxDone(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// liveLogMax is how many changed notes of one burst are logged one by one
// (a git checkout can change thousands; the rest are counted).
const liveLogMax = 20

// logLiveChangesLocked logs each note the watcher found changed, once, at
// INFO: a person can see what reached the graph. Files whose content did
// not change (a touch, the tools' own writes) are not changes.
func (m *Mirror) logLiveChangesLocked(changes []fileChange) {
	logged, more := 0, 0
	for _, c := range changes {
		var kind string
		switch e := m.idx.byPath[c.path]; {
		case c.unchanged:
			continue
		case c.parsed == nil && e == nil:
			continue
		case c.parsed == nil:
			kind = "deleted"
		case e == nil:
			kind = "created"
		case e.hash == c.parsed.note.Hash:
			continue
		default:
			kind = "changed"
		}
		if logged == liveLogMax {
			more++
			continue
		}
		logged++
		m.log.Info("vault: note "+kind+" on disk", "path", c.path)
	}
	if more > 0 {
		m.log.Info("vault: more notes changed on disk", "count", more)
	}
}
