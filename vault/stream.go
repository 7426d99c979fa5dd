package vault

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// A streaming first sync (streamLocked) writes the vault into a store that
// has none of its notes while it reads it, holding only a few parts' text:
// the notes of a part are read and parsed while the store writes the part
// before, then written, then dropped. What makes that exact is that a
// link's target depends only on the set of note paths (its keys, the
// folder rule, case collisions: package documentation), and the walk
// lists every path before a file is read: every entry of the index, with
// its ID and keys, exists before the first part is read, so a link is
// resolved once, as it will stay. Three things can still differ from the
// walk's picture, and are repaired when the last part is written:
//   - a file that cannot be read (gone since the walk, too large,
//     unreadable) is no note: links resolved to it were wrong. Its entry
//     is removed as a deletion is applied (applyLocked), which reads the
//     notes linking it again and queues them;
//   - a link on a key several notes answer to, whose target is written in
//     a later part, may be resolved meanwhile by the store to the note of
//     an earlier part claiming the key (see flushOnceLocked): such notes
//     are read again and written once more at the end;
//   - a file that changes after its part was read is a change like any
//     other after a sync (live mode's watches, the next sync).
// The store commits each part: a sync killed halfway leaves the parts
// written, which the next start restores and completes (restore.go).

// streamHook, when set (tests), is called before each part's files are
// read, with the part's number.
var streamHook func(part int)

// streams reports whether a first sync into an empty store may stream:
// the store takes a large write in parts (Config.StagedBatch).
func (m *Mirror) streams() bool { return m.cfg.StagedBatch > 0 }

// readPart is one part's files as read: changes[i] is the file of the
// part's i-th entry, with failed[i] its read error.
type readPart struct {
	changes []fileChange
	failed  []error
}

// streamLocked is the first sync of files (the walk's) into a store that
// has none of the project's notes, in parts of Config.StagedBatch notes
// by ID (see the top of this file). done logs a phase.
func (m *Mirror) streamLocked(ctx context.Context, files []fileStat, done func(string, ...any)) (SyncStats, error) {
	var stats SyncStats
	x := m.idx
	for _, f := range files {
		if x.byPath[f.path] == nil {
			x.add(newEntry(f.path))
		}
	}
	for _, e := range x.byPath {
		if e.id == "" { // a new note: its group's IDs (an old note's group without one is unchanged)
			x.regroup(e.lower)
		}
	}
	order := make([]*entry, 0, len(x.byPath))
	for _, e := range x.byPath {
		order = append(order, e)
	}
	sort.Slice(order, func(i, j int) bool { return order[i].id < order[j].id })
	done("index the paths", "notes", len(order))

	size := m.cfg.StagedBatch
	parts := (len(order) + size - 1) / size
	partOf := func(k int) []*entry { return order[k*size : min((k+1)*size, len(order))] }

	// The reader runs one part ahead of the write: the part it reads (or
	// holds, waiting to hand it over) and the one the store is writing are
	// the only texts held. Reading a part takes a fraction of writing it
	// (the write waited 0.1–0.3 s in all at 100k), so a second part ahead
	// would only hold more.
	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	ready := make(chan readPart)
	var reader sync.WaitGroup
	reader.Go(func() {
		defer close(ready)
		for k := range parts {
			if streamHook != nil {
				streamHook(k)
			}
			part := m.readPart(readCtx, partOf(k))
			if readCtx.Err() != nil {
				return
			}
			ready <- part
		}
	})
	defer reader.Wait()
	// A cancelled sync leaves no index: the next Sync starts over.
	abandon := func(err error) (SyncStats, error) {
		stopReading()
		for range ready {
		}
		for p := range m.idx.byPath {
			m.lint.set(p, nil)
		}
		m.idx, m.unread = newIndex(), nil
		clear(m.pending)
		clear(m.bodies)
		return stats, fmt.Errorf("vault: sync: %w", err)
	}

	bar := m.newProgress(len(order), "syncing notes")
	// A store that takes a staged write in parts (core.StagedStreamer)
	// gets every part as one write: it draws the links after the last,
	// each resolved as the index resolved it, so no note links forward
	// into a later part and none is written again for it.
	w := m.newPartWriter(ctx, bar)
	var report lintReport
	var gone []unreadable             // files that could not be read
	neverWritten := map[string]bool{} // their IDs
	var again []*entry                // notes to write again at the end (forward ambiguous links)
	var storeErr error
	var waited, wrote time.Duration
	// No note of the index has links yet (the usual first sync): the notes
	// linking on each key are listed after the last part (linkers.buildLater),
	// which no step of the parts reads.
	listLater := x.linkers.empty()
	for k := range parts {
		t0 := time.Now()
		part, ok := <-ready
		if !ok {
			return abandon(ctx.Err())
		}
		waited += time.Since(t0)
		entries := partOf(k)
		notes := make([]core.Note, 0, len(entries))
		for i, e := range entries {
			c := part.changes[i]
			if err := part.failed[i]; err != nil {
				gone = append(gone, unreadable{e.path, err})
				neverWritten[e.id] = true
				bar.Add(1)
				continue
			}
			p := c.parsed
			e.hash = p.note.Hash
			e.setStat(c.stat)
			x.resolveShared(e, c.refs, c.texts)
			if listLater {
				e.links, e.texts = c.refs, c.texts
			} else {
				x.setLinks(e, c.refs, c.texts)
			}
			problems := m.appendBroken(ctx, append([]string(nil), p.warnings...), e)
			core.AddCallWarnings(ctx, problems...)
			report.add(e.path, m.lint.set(e.path, problems))
			if storeErr != nil {
				// The store failed: the rest is read into the index and
				// queued without its text (withBodies reads it back).
				p.dropBody()
				n := m.noteOf(e, p)
				m.pending[n.ID] = n
				m.bodies[n] = p.bodyAt
				continue
			}
			notes = append(notes, *m.noteOf(e, p))
			if w.stream == nil && k+1 < parts && m.linksForward(&notes[len(notes)-1], entries[len(entries)-1].id) {
				again = append(again, e)
			}
		}
		part = readPart{}
		if storeErr != nil || len(notes) == 0 {
			continue
		}
		t0 = time.Now()
		if err := w.write(ctx, notes); err != nil {
			if ctx.Err() != nil {
				return abandon(ctx.Err())
			}
			storeErr = err
			for i := range notes {
				// Queued whole: a failure is rare and this part is small.
				n := notes[i]
				m.pending[n.ID] = &n
			}
			// The stream's earlier parts have no links yet: queued too.
			m.requeue(w.streamed)
			w.streamed = nil
			continue
		}
		if w.stream != nil {
			w.streamed = append(w.streamed, entries...)
		}
		wrote += time.Since(t0)
		stats.Written += len(notes)
	}
	if storeErr == nil && w.stream != nil {
		t0 := time.Now()
		if err := w.stream.Finish(ctx); err != nil {
			if ctx.Err() != nil {
				return abandon(ctx.Err())
			}
			storeErr = fmt.Errorf("upsert %d notes: %w", stats.Written, err)
			m.requeue(w.streamed)
			stats.Written = 0
		}
		wrote += time.Since(t0)
	}
	done("read, parse and write", "written", stats.Written, "waited for reads s", waited.Seconds(), "store s", wrote.Seconds(), "again", len(again), "unreadable", len(gone))
	bar.Finish()
	if listLater {
		// Every entry: one not read has no links. Before the repairs,
		// which use the lists.
		x.linkers.buildLater(order)
	}

	// The repairs (see the top of this file), before the index counts as
	// loaded: nothing is told to the change log for them.
	var changes []fileChange
	for _, u := range gone {
		changes = append(changes, fileChange{path: u.path})
	}
	for _, e := range again {
		if _, queued := m.pending[e.id]; queued || x.byPath[e.path] != e {
			continue
		}
		c, err := m.read(e.path, "")
		switch {
		case err != nil:
			changes = append(changes, fileChange{path: e.path})
			gone = append(gone, unreadable{e.path, err})
		case c.parsed.note.Hash != e.hash:
			changes = append(changes, c)
		default:
			m.pending[e.id] = m.noteOf(e, c.parsed)
		}
	}
	if len(changes) > 0 {
		_, warnings := m.applyLocked(ctx, changes)
		stats.Warnings += warnings
		for id := range neverWritten {
			if n, queued := m.pending[id]; queued && n == nil && x.byID[id] == nil {
				delete(m.pending, id) // nothing to delete in the store
			}
		}
	}
	// Their own problems, after the removal of their entries cleared them.
	for _, u := range gone {
		m.loadFailed(u.path, u.err)
	}
	m.logLint(report)
	stats.Warnings += len(report.problems)
	m.ready, m.unread = true, nil
	if storeErr != nil {
		return stats, m.storeFailed(fmt.Errorf("vault: sync: %w", storeErr))
	}
	// Written counts each note once: the repairs write notes written
	// already (or deletions of notes written under another ID).
	res, err := m.flushLocked(ctx, noProgress{})
	stats.Deleted += res.deleted
	done("repairs", "written", res.written, "deleted", res.deleted)
	return stats, err
}

// readPart reads and parses the files of entries on Config.Workers
// goroutines; it stops early when ctx is done.
func (m *Mirror) readPart(ctx context.Context, entries []*entry) readPart {
	part := readPart{changes: make([]fileChange, len(entries)), failed: make([]error, len(entries))}
	inParallel(ctx, len(entries), m.cfg.Workers, func(i int) {
		c, err := m.read(entries[i].path, "")
		if err != nil {
			part.failed[i] = err
			return
		}
		c.refs, c.texts = linkRefs(c.parsed)
		c.parsed.spans = nil
		part.changes[i] = c
	})
	return part
}

// resolveShared resolves refs, the links of e about to be set (a first
// sync resolves each link once, as it will stay: see the top of this
// file), and points their strings and those of texts, their targets as
// written, at memory the index keeps anyway: a link that resolves has as
// key the equal key of its target's entry (a window into that note's
// lowercased path), and the other keys and every written target are
// copied into one string of their own. They were windows into the note's
// parsed link text (the raw links, the keys lowercased), which a first
// sync would otherwise keep for every note of the vault.
func (x *index) resolveShared(e *entry, refs []linkRef, texts []linkText) {
	if len(refs) == 0 {
		return
	}
	shared := make([]bool, len(refs))
	size := 0
	dir := e.dir()
	for i := range refs {
		l := &refs[i]
		if t := x.resolveEntry(l.key, dir); t != nil {
			l.target = t.id
			if k, ok := t.keyWindow(l.key); ok {
				l.key, shared[i] = k, true
			}
		}
		if !shared[i] {
			size += len(l.key)
		}
		size += len(texts[i].written)
	}
	var b strings.Builder
	b.Grow(size)
	for i := range refs {
		if !shared[i] {
			b.WriteString(refs[i].key)
		}
		b.WriteString(texts[i].written)
	}
	all, off := b.String(), 0
	take := func(s *string) {
		*s, off = all[off:off+len(*s)], off+len(*s)
	}
	for i := range refs {
		if !shared[i] {
			take(&refs[i].key)
		}
		take(&texts[i].written)
	}
}

// unreadable is a file a streaming sync could not read.
type unreadable struct {
	path string
	err  error
}

// linksForward reports whether note n, of a part whose last ID is last,
// links on a key several notes answer to a note of a later part (see the
// top of this file).
func (m *Mirror) linksForward(n *core.Note, last string) bool {
	for _, l := range n.Links {
		if l.Target > last && len(m.idx.candidates(l.Key)) > 1 {
			return true
		}
	}
	return false
}

// partWriter writes a streaming sync's parts (writePart), into one
// staged stream when the store takes one (core.StagedStreamer).
type partWriter struct {
	m      *Mirror
	bar    progress
	stream core.StagedStream // nil: each part is a write of its own
	// streamed are the entries of the parts given to stream: their notes
	// have no links until Finish, so they are queued again if it fails.
	streamed []*entry
}

func (m *Mirror) newPartWriter(ctx context.Context, bar progress) *partWriter {
	w := &partWriter{m: m, bar: bar}
	if s, ok := m.cfg.Store.(core.StagedStreamer); ok {
		st, err := s.BeginStaged(ctx, m.cfg.Project, bar.Add)
		if err == nil {
			w.stream = st
		} else {
			m.log.Warn("vault: the store refused a staged stream; writing the parts one by one", "err", err)
		}
	}
	return w
}

func (w *partWriter) write(ctx context.Context, notes []core.Note) error {
	if w.stream == nil {
		return w.m.writePart(ctx, notes, w.bar)
	}
	if err := w.stream.Write(ctx, notes); err != nil {
		return fmt.Errorf("upsert %d notes: %w", len(notes), err)
	}
	for i := range notes {
		w.m.storedSize(notes[i].ID, notes[i].Size)
	}
	return nil
}

// requeue queues again, without their text, the notes of entries a staged
// stream took before it failed: the store holds them without links.
func (m *Mirror) requeue(entries []*entry) {
	for _, e := range entries {
		if _, queued := m.pending[e.id]; queued || m.idx.byPath[e.path] != e {
			continue
		}
		c, err := m.read(e.path, "")
		if err != nil || c.parsed.note.Hash != e.hash {
			// Gone or changed since its part was read: the store holds it
			// with an empty hash, which the next sync rewrites.
			continue
		}
		p := c.parsed
		p.dropBody()
		n := m.noteOf(e, p)
		m.pending[n.ID] = n
		m.bodies[n] = p.bodyAt
	}
}

// writePart writes one part's notes: a staged call when the store stages
// (it tells the progress bar as it goes), else plain batches.
func (m *Mirror) writePart(ctx context.Context, notes []core.Note, bar progress) error {
	if staged, ok := m.cfg.Store.(core.StagedWriter); ok && len(notes) > m.cfg.BatchSize {
		if err := staged.UpsertNotesStaged(ctx, m.cfg.Project, notes, bar.Add); err != nil {
			return fmt.Errorf("upsert %d notes: %w", len(notes), err)
		}
		for i := range notes {
			m.storedSize(notes[i].ID, notes[i].Size)
		}
		return nil
	}
	for b := 0; b < len(notes); b += m.cfg.BatchSize {
		batch := notes[b:min(b+m.cfg.BatchSize, len(notes))]
		if err := m.cfg.Store.UpsertNotes(ctx, m.cfg.Project, batch); err != nil {
			return fmt.Errorf("upsert %d notes: %w", len(batch), err)
		}
		for i := range batch {
			m.storedSize(batch[i].ID, batch[i].Size)
		}
		bar.Add(len(batch))
	}
	return nil
}
