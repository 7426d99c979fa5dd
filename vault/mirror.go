package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vaultgraph/vaultgraph/confine"
	"github.com/vaultgraph/vaultgraph/core"
)

// Mirror keeps a store's note graph equal to a vault folder: Sync for the
// initial full pass, Watch for live mode, Writer for changes made through
// vaultgraph. It is safe for concurrent use; changes are applied one at a
// time, in the order they arrive.
//
// The Mirror holds an index of the vault in memory (paths, IDs, hashes and
// links, not note bodies), so it resolves links exactly as the rules in the
// package documentation say and knows which notes a change affects without
// asking the store.
type Mirror struct {
	cfg    Config
	log    *slog.Logger
	ignore *ignoreMatcher
	fs     *confine.Root // every file operation goes through it
	lint   *Lint

	lintLog   *lintLog // which problems were logged (lintlog.go)
	lintQuiet bool     // during the first sync, which reports its problems once at its end; under mu

	mu        sync.Mutex
	idx       *index
	ready     bool                  // Sync has built the index
	unread    map[string]string     // during a restart: stored hash by path of notes read too soon after a change (restoreLocked, reportChanges)
	restore   restoreCheck          // how the last restore checked the stored links (restore.go)
	pending   map[string]*core.Note // store changes not applied yet: note to upsert, nil to delete
	bodies    map[*core.Note]int    // notes of pending queued without their text: where it starts in the file (withBodies)
	failing   bool                  // the last store write failed; pending waits for a retry
	agrees    bool                  // once pending is written, the store holds exactly the index's notes and targets (stampSyncedLocked)
	racyNotes map[string]bool       // IDs of the notes the store holds with racySize, as far as this process knows (Settle)
	filesRead atomic.Int64          // note files read, for SyncStats.Read

	retry chan struct{} // signalled when pending waits for a retry

	syncedOnce sync.Once
	synced     chan struct{} // closed when the first Sync has returned

	early    *liveWatch // watches a first Sync started for Watch (Config.Live); under mu
	liveNext bool       // Watch's own first Sync starts them too; under mu

	liveOnce sync.Once
	live     chan struct{} // closed once Watch watches every folder
	watching atomic.Int32  // Watch calls running: the index follows the disk

	unlockWrites func() // releases the vault's write lock a Writer holds (under mu)
}

// NewMirror checks cfg and returns a Mirror; nothing is read until Sync.
func NewMirror(cfg Config) (*Mirror, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	ig, err := newIgnoreMatcher(cfg.Ignore)
	if err != nil {
		return nil, err
	}
	root, err := confine.OpenRoot(cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("vault: open %s: %w", cfg.Root, err)
	}
	ll, err := loadLintLog(cfg.LintLog)
	if err != nil {
		cfg.Logger.Debug("vault: problems logged before are unknown; all are logged again", "err", err)
	}
	return &Mirror{
		cfg:       cfg,
		log:       cfg.Logger,
		ignore:    ig,
		fs:        root,
		lint:      newLint(),
		lintLog:   ll,
		idx:       newIndex(),
		pending:   map[string]*core.Note{},
		bodies:    map[*core.Note]int{},
		racyNotes: map[string]bool{},
		retry:     make(chan struct{}, 1),
		synced:    make(chan struct{}),
		live:      make(chan struct{}),
	}, nil
}

// Lint returns the problems the vault's notes have now (see Lint).
func (m *Mirror) Lint() *Lint { return m.lint }

// Close releases the Mirror's handle on the vault folder. Stop Watch first.
func (m *Mirror) Close() error {
	m.mu.Lock()
	if m.early != nil {
		_ = m.early.w.Close()
		m.early = nil
	}
	m.mu.Unlock()
	return m.fs.Close()
}

// Root returns the vault folder, absolute and with symbolic links resolved.
func (m *Mirror) Root() string { return m.cfg.Root }

// Pending returns how many store changes wait for the store to accept them.
func (m *Mirror) Pending() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.pending)
}

// brokenLink is the warning for an unresolved link (spec 000).
func brokenLink(written string) string { return brokenLinkPrefix + written + "]]" }

const brokenLinkPrefix = "Broken link: [["

// fileChange is one note file as it is now: parsed, unchanged (its hash
// is the one the index has), or gone (neither).
type fileChange struct {
	path      string
	parsed    *parsedNote
	unchanged bool
	stat      fileStat
	movedTo   string     // gone because a rename moved it there (for the change log)
	refs      []linkRef  // linkRefs(parsed) when the reader made them already (loadAll), else nil
	texts     []linkText // with refs: their targets as written and kinds
}

// applyLocked brings the index up to date with changes and queues the
// store writes they imply: notes whose file changed, notes whose ID changed
// (case collisions), and notes whose links now resolve differently because
// a note answering to one of their keys appeared, disappeared or changed
// ID. A file whose hash is unchanged costs nothing. It returns the queued
// notes by path and how many new problems it found (see Lint): those of
// changed files, and links that a change broke; the problems of the notes
// a tool call wrote, and the links it broke, go to the call's warnings
// (core.AddCallWarnings). m.mu must be held.
func (m *Mirror) applyLocked(ctx context.Context, changes []fileChange) (map[string]*core.Note, int) {
	x := m.idx
	loaded := map[*entry]*parsedNote{}
	fromFile := map[*entry]bool{} // content read from a changed file
	reread := map[*entry]bool{}   // ID changed: must be written again
	dirty := map[string]bool{}    // keys whose candidates changed
	groups := map[string]bool{}   // collision groups to reassign
	gone := map[string]bool{}     // IDs that may no longer exist
	var seen noteChanges          // for the change log (changes.go)

	for _, c := range changes {
		e := x.byPath[c.path]
		switch {
		case c.unchanged:
			if e != nil {
				e.setStat(c.stat)
			}
		case c.parsed == nil:
			if e == nil {
				continue
			}
			seen.deleted(e, c.movedTo)
			if e.id != "" {
				gone[e.id] = true
			}
			m.lint.set(e.path, nil)
			markAll(dirty, e.keys())
			x.remove(e)
			groups[e.lower] = true
			delete(loaded, e)
			delete(fromFile, e)
			delete(reread, e)
		case e != nil && e.hash == c.parsed.note.Hash:
			e.setStat(c.stat)
		default:
			seen.written(e, c)
			if e == nil {
				e = newEntry(c.path)
				x.add(e)
				groups[e.lower] = true
				markAll(dirty, e.keys())
			}
			e.hash = c.parsed.note.Hash
			e.setStat(c.stat)
			refs, texts := c.refs, c.texts
			if refs == nil {
				refs, texts = linkRefs(c.parsed)
			}
			x.setLinks(e, refs, texts)
			loaded[e] = c.parsed
			fromFile[e] = true
		}
	}
	for g := range groups {
		for _, ch := range x.regroup(g) {
			if ch.old != "" {
				gone[ch.old] = true
				markAll(dirty, ch.e.keys())
			}
			if loaded[ch.e] == nil {
				reread[ch.e] = true
			}
		}
	}

	affected := map[*entry]bool{}
	for e := range loaded {
		affected[e] = true
	}
	for e := range reread {
		affected[e] = true
	}
	for k := range dirty {
		for _, e := range x.linkers.of(k) {
			affected[e] = true
		}
	}
	var report lintReport
	for _, e := range sortedEntries(affected) {
		changed, broken := x.resolveLinks(e)
		if fromFile[e] || (!changed && !reread[e]) {
			continue
		}
		if loaded[e] == nil {
			p, st, err := m.load(e.path)
			if err != nil {
				// Its own event, or the next reconcile, will bring it.
				m.log.Debug("vault: cannot reread linking note", "path", e.path, "err", err)
				continue
			}
			if p.note.Hash != e.hash {
				e.hash = p.note.Hash
				e.setStat(st)
				refs, texts := linkRefs(p)
				x.setLinks(e, refs, texts)
				x.resolveLinks(e)
				fromFile[e] = true
			}
			loaded[e] = p
		}
		if !fromFile[e] {
			var now []string
			for _, i := range broken {
				now = append(now, brokenLink(m.writtenText(ctx, e, i)))
			}
			core.AddCallWarnings(ctx, now...)
			report.add(e.path, m.lint.set(e.path, m.relint(ctx, m.lint.get(e.path), e)))
		}
	}

	built := make(map[string]*core.Note, len(loaded))
	for _, e := range sortedEntries(loaded) {
		p := loaded[e]
		n := m.noteOf(e, p)
		if old := m.pending[n.ID]; old != nil {
			delete(m.bodies, old)
		}
		if p.bodyless {
			m.bodies[n] = p.bodyAt
		}
		m.pending[n.ID] = n
		built[e.path] = n
		if fromFile[e] {
			problems := append([]string(nil), p.warnings...)
			problems = m.appendBroken(ctx, problems, e)
			core.AddCallWarnings(ctx, problems...)
			report.add(e.path, m.lint.set(e.path, problems))
		}
	}
	for id := range gone {
		if x.byID[id] == nil {
			m.pending[id] = nil
		}
	}
	m.reportChanges(ctx, &seen)
	m.logLint(report)
	return built, len(report.problems)
}

// appendBroken appends a "Broken link" problem for each unresolved link of
// e, once per link as written.
func (m *Mirror) appendBroken(ctx context.Context, problems []string, e *entry) []string {
	for i, l := range e.links {
		if l.target == "" {
			if msg := brokenLink(m.writtenText(ctx, e, i)); !contains(problems, msg) {
				problems = append(problems, msg)
			}
		}
	}
	return problems
}

// relint recomputes the problems of a note whose links resolve anew but
// whose file did not change: its other problems stay.
func (m *Mirror) relint(ctx context.Context, old []string, e *entry) []string {
	var out []string
	for _, p := range old {
		if !strings.HasPrefix(p, brokenLinkPrefix) {
			out = append(out, p)
		}
	}
	return m.appendBroken(ctx, out, e)
}

// noteOf makes the store's note from an entry and its parsed file. The
// note takes p's links and sets their targets: p is read once, for one
// note (a copy of every link of a first sync, 100 MB at 100k notes, was
// the price of not sharing them).
func (m *Mirror) noteOf(e *entry, p *parsedNote) *core.Note {
	n := p.note
	n.Project = m.cfg.Project
	n.ID = e.id
	n.ModTime = e.mtime
	n.Keys = e.keys()
	for i := range n.Links {
		n.Links[i].Target = e.links[i].target
	}
	return &n
}

func markAll(set map[string]bool, keys []string) {
	for _, k := range keys {
		set[k] = true
	}
}

// sortedEntries returns the keys of a set of entries by path, so that work
// and warnings come in a stable order.
func sortedEntries[V any](set map[*entry]V) []*entry {
	out := make([]*entry, 0, len(set))
	for e := range set {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// flushResult counts what a flush wrote.
type flushResult struct {
	written, deleted int
}

// flushLocked applies the pending store changes (see flushOnceLocked).
// A note queued without its text (a first sync's, see withBodies) whose
// file changed since it was parsed is not written as parsed: the change
// is applied like any other (the index, and the notes whose links it
// affects, queued again) and the flush goes on with what that queued,
// read whole this time. m.mu must be held.
func (m *Mirror) flushLocked(ctx context.Context, bar progress) (flushResult, error) {
	var res flushResult
	for {
		r, changed, err := m.flushOnceLocked(ctx, bar)
		res.written += r.written
		res.deleted += r.deleted
		if err != nil || len(changed) == 0 {
			return res, err
		}
		m.log.Debug("vault: notes changed while the sync wrote them; applying the changes", "files", len(changed))
		m.applyLocked(ctx, changed)
	}
}

// flushOnceLocked applies the pending store changes: deletes first, then
// upserts in batches of Config.BatchSize, by ID. What the store accepted
// leaves the queue; on an error the rest stays queued for the next flush.
// More than a batch goes to a core.StagedWriter store in one call, or in
// calls of Config.StagedBatch notes when that is set. It returns the
// files of notes queued without their text that changed since they were
// parsed (withBodies): still queued, not written.
//
// A link whose target is written in a later batch is stored unresolved
// until that batch, and the store then resolves it to the smallest ID of
// the batch claiming its key, which may not be the note the vault's rules
// chose when the key is ambiguous; such linking notes are written once
// more at the end.
func (m *Mirror) flushOnceLocked(ctx context.Context, bar progress) (flushResult, []fileChange, error) {
	var res flushResult
	if len(m.pending) == 0 {
		m.failing = false
		clear(m.bodies)
		return res, nil, nil
	}
	var dels []string
	var ups []*core.Note
	for id, n := range m.pending {
		if n == nil {
			dels = append(dels, id)
		} else {
			ups = append(ups, n)
		}
	}
	sort.Strings(dels)
	sort.Slice(ups, func(i, j int) bool { return ups[i].ID < ups[j].ID })

	if len(dels) > 0 {
		if _, err := m.cfg.Store.DeleteNotes(ctx, m.cfg.Project, dels); err != nil {
			return res, nil, m.storeFailed(fmt.Errorf("vault: delete %d notes: %w", len(dels), err))
		}
		for _, id := range dels {
			if m.pending[id] == nil {
				delete(m.pending, id)
			}
			delete(m.racyNotes, id)
		}
		res.deleted = len(dels)
	}

	var changed []fileChange
	// A note written leaves the queue; it keeps its body offset until the
	// end, for the rewrite of the forward ambiguous ones below.
	var done []*core.Note
	written := func(batch []*core.Note) {
		for _, n := range batch {
			if m.pending[n.ID] == n {
				delete(m.pending, n.ID)
			}
			m.storedSize(n.ID, n.Size)
		}
		done = append(done, batch...)
	}
	defer func() {
		for _, n := range done {
			if _, queued := m.pending[n.ID]; !queued {
				delete(m.bodies, n)
			}
		}
	}()
	size := m.cfg.BatchSize
	upsert := m.cfg.Store.UpsertNotes
	stagedCalls := false // the store tells the progress bar
	if staged, ok := m.cfg.Store.(core.StagedWriter); ok && len(ups) > size {
		stage := func(ctx context.Context, project string, notes []core.Note) error {
			return staged.UpsertNotesStaged(ctx, project, notes, bar.Add)
		}
		if streamer, ok := m.cfg.Store.(core.StagedStreamer); ok && m.cfg.StagedBatch > 0 {
			// One staged write given in parts of StagedBatch notes, each
			// part's text read for its part only; the links are drawn at
			// the end, as in one call.
			n, more, err := m.flushStream(ctx, streamer, ups, bar)
			changed = append(changed, more...)
			if err != nil {
				return res, changed, m.storeFailed(fmt.Errorf("vault: upsert %d notes: %w", len(ups), err))
			}
			written(n)
			res.written = len(n)
			m.failing = false
			return res, changed, nil
		}
		if m.cfg.StagedBatch <= 0 {
			notes, kept, more := m.withBodies(ups)
			changed = append(changed, more...)
			if err := stage(ctx, m.cfg.Project, notes); err != nil {
				return res, changed, m.storeFailed(fmt.Errorf("vault: upsert %d notes: %w", len(notes), err))
			}
			written(kept)
			res.written = len(kept)
			m.failing = false
			return res, changed, nil
		}
		size, upsert, stagedCalls = m.cfg.StagedBatch, stage, true
	}
	batchOf := make(map[string]int, len(ups))
	for i, n := range ups {
		batchOf[n.ID] = i / size
	}
	var again []*core.Note
	for b := 0; b*size < len(ups); b++ {
		notes, batch, more := m.withBodies(ups[b*size : min((b+1)*size, len(ups))])
		changed = append(changed, more...)
		if err := upsert(ctx, m.cfg.Project, notes); err != nil {
			return res, changed, m.storeFailed(fmt.Errorf("vault: upsert %d notes: %w", len(notes), err))
		}
		written(batch)
		for _, n := range batch {
			if m.forwardAmbiguous(n, b, batchOf) {
				again = append(again, n)
			}
		}
		res.written += len(batch)
		if !stagedCalls {
			bar.Add(len(batch))
		}
	}
	for b := 0; b*size < len(again); b++ {
		// A file changed since its batch read it is applied as a change
		// below; the rest are written again.
		notes, _, more := m.withBodies(again[b*size : min((b+1)*size, len(again))])
		changed = append(changed, more...)
		if err := m.cfg.Store.UpsertNotes(ctx, m.cfg.Project, notes); err != nil {
			for _, n := range again[b*size:] {
				if _, queued := m.pending[n.ID]; !queued {
					m.pending[n.ID] = n
				}
			}
			return res, changed, m.storeFailed(fmt.Errorf("vault: upsert %d notes: %w", len(notes), err))
		}
	}
	m.failing = false
	return res, changed, nil
}

// flushStream writes ups (more than a batch, by ID) as one staged stream
// in parts of Config.StagedBatch notes; it returns the notes written and
// the files changed since they were parsed (withBodies). Nothing counts as
// written unless the stream finishes: until then the store holds the
// notes without their links.
func (m *Mirror) flushStream(ctx context.Context, s core.StagedStreamer, ups []*core.Note, bar progress) (written []*core.Note, changed []fileChange, err error) {
	st, err := s.BeginStaged(ctx, m.cfg.Project, bar.Add)
	if err != nil {
		return nil, nil, err
	}
	size := m.cfg.StagedBatch
	for b := 0; b < len(ups); b += size {
		notes, kept, more := m.withBodies(ups[b:min(b+size, len(ups))])
		changed = append(changed, more...)
		if err := st.Write(ctx, notes); err != nil {
			return nil, changed, err
		}
		written = append(written, kept...)
	}
	if err := st.Finish(ctx); err != nil {
		return nil, changed, err
	}
	return written, changed, nil
}

// readsBack reports whether a first sync drops each note's text once
// parsed and reads it back from the file when it writes the note
// (withBodies): when the write goes to the store in parts (a store that
// takes plain batches, or Config.StagedBatch), so that only one part's
// texts are held at a time. One staged call takes every note at once,
// texts included: reading them back would only cost time.
func (m *Mirror) readsBack() bool {
	_, staged := m.cfg.Store.(core.StagedWriter)
	return !staged || m.cfg.StagedBatch > 0
}

// bodyHook, when set (tests), is called before withBodies reads the files
// of notes queued without their text.
var bodyHook func()

// withBodies returns the notes ns point to as the store takes them, with
// the text of those queued without it (Mirror.bodies) read from their
// files; kept are the notes returned. A file whose bytes no longer have
// the hash its note was parsed with (or that is gone) is left out and
// returned as a change to apply: the note and the links resolved against
// its old text must not be written. A file that cannot be read is left
// out of the queue with a warning (the next reconcile finds the store
// without it and reads it again).
func (m *Mirror) withBodies(ns []*core.Note) (notes []core.Note, kept []*core.Note, changed []fileChange) {
	var todo []int
	for i, n := range ns {
		if _, ok := m.bodies[n]; ok {
			todo = append(todo, i)
		}
	}
	reads := make([]bodyRead, len(ns))
	if len(todo) > 0 {
		if bodyHook != nil {
			bodyHook()
		}
		inParallel(context.Background(), len(todo), m.cfg.Workers, func(k int) {
			i := todo[k]
			reads[i] = m.readBody(ns[i], m.bodies[ns[i]])
		})
	}
	notes = make([]core.Note, 0, len(ns))
	kept = make([]*core.Note, 0, len(ns))
	for i, n := range ns {
		r := reads[i]
		switch {
		case r.failed:
			if m.pending[n.ID] == n {
				delete(m.pending, n.ID)
			}
			delete(m.bodies, n)
			m.agrees = false // the index has the note, the store not as indexed
		case r.change != nil:
			changed = append(changed, *r.change)
		default:
			note := *n
			if _, ok := m.bodies[n]; ok {
				note.Content = r.content
			}
			notes = append(notes, note)
			kept = append(kept, n)
		}
	}
	return notes, kept, changed
}

// bodyRead is what readBody found: the note's text, or a change to apply
// instead, or a file that could not be read.
type bodyRead struct {
	content string
	change  *fileChange
	failed  bool
}

// readBody reads the text of note n, queued without it, from its file
// (see withBodies); bodyAt is where it starts in the file.
func (m *Mirror) readBody(n *core.Note, bodyAt int) bodyRead {
	// A file gone is applied as a deletion; another failure leaves the
	// note out with a warning.
	unreadable := func(err error) bodyRead {
		if errors.Is(err, fs.ErrNotExist) {
			return bodyRead{change: &fileChange{path: n.Path}}
		}
		m.loadFailed(n.Path, err)
		return bodyRead{failed: true}
	}
	raw, _, err := m.readFile(n.Path)
	if err != nil {
		return unreadable(err)
	}
	if hashOf(raw) != n.Hash {
		c, err := m.read(n.Path, "")
		if err != nil {
			return unreadable(err)
		}
		return bodyRead{change: &c}
	}
	return bodyRead{content: bodyOf(raw, bodyAt)}
}

// forwardAmbiguous reports whether note n, written in batch b, links on an
// ambiguous key to a note written in a later batch.
func (m *Mirror) forwardAmbiguous(n *core.Note, b int, batchOf map[string]int) bool {
	for _, l := range n.Links {
		if l.Target == "" {
			continue
		}
		if tb, ok := batchOf[l.Target]; ok && tb > b && len(m.idx.candidates(l.Key)) > 1 {
			return true
		}
	}
	return false
}

// storeFailed records a failed store write and wakes the retry loop.
func (m *Mirror) storeFailed(err error) error {
	m.failing = true
	// Part of a staged write may have committed: what the store holds is
	// no longer vouched for (a restart resolves its links again).
	m.agrees = false
	select {
	case m.retry <- struct{}{}:
	default:
	}
	return err
}
