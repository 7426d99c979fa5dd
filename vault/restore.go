package vault

import (
	"context"
	"maps"
	"strings"
	"unicode/utf8"

	"github.com/vaultgraph/vaultgraph/core"
)

// A first sync on a store that already holds the project (a restart) does
// not read every note file: it rebuilds the index from what the store says
// it wrote (core.NoteStateReader: each note's path, hash, size, mtime and
// links) and then rescans the vault like a later Sync does, reading only
// the files whose size or mtime differ from the store's and the notes that
// the store holds otherwise than the vault's rules give now. At 100k notes
// that is a walk of 0.4 s instead of 3 s of reading and parsing, and a
// store that keeps note states on disk (the embedded store) restarts
// without touching a note's text.

// restoreLocked fills the empty index with the notes the store holds and
// returns the entries whose store copy disagrees with the index (another
// ID, or links resolved otherwise), which must be written again. restored
// is how many notes it took; 0 when the store holds none of this project
// (or knows too little of them: a note without a size or hash is left to
// the rescan, which reads its file). racy holds the IDs of the notes left
// out because their file was read too soon after a change (racySize): they
// are written again only if their text changed. m.mu must be held.
func (m *Mirror) restoreLocked(ctx context.Context) (restored int, stale []*entry, racy map[string]bool, err error) {
	type stored struct {
		e        *entry
		id       string
		problems []string // the broken links the store holds (see below)
	}
	m.restore = restoreResolved
	var all []stored
	if n, err := m.cfg.Store.CountNotes(ctx, m.cfg.Project); err == nil && n > 0 && len(m.idx.byPath) == 0 {
		m.idx = newIndexFor(n)
		all = make([]stored, 0, n)
	}
	racy = map[string]bool{}
	complete := true // every state the store gave is in the index
	// Collision groups of more than one note get their IDs once every
	// note is in (regroup); a group's first note takes its only possible
	// ID at once, as regroup would give it alone, so the work overlaps
	// the store's decoding of the next states.
	shared := map[string]bool{}
	err = m.cfg.Store.NoteStates(ctx, m.cfg.Project, func(st core.NoteState) error {
		if st.Size == racySize {
			racy[st.ID] = true
		}
		if !st.Known() || m.idx.byPath[st.Path] != nil || !isNodePath(st.Path) || m.ignore.skip(st.Path) {
			complete = false
			if st.Path != "" && st.Hash != "" && !st.Known() {
				if m.unread == nil {
					m.unread = map[string]string{}
				}
				m.unread[st.Path] = st.Hash
			}
			return nil
		}
		e := newStoredEntry(st.Path, st.ID)
		e.hash, e.size, e.mtime = st.Hash, st.Size, st.ModTime
		// The links start with the store's targets: resolving them below
		// reports whether the store resolved any otherwise. Their texts
		// as written are not kept (entry.texts), but those of the links
		// the store holds unresolved are the note's problems, unless the
		// resolution below finds otherwise: they are read from Raw now,
		// which is valid only during this call.
		var problems []string
		if len(st.Links) > 0 {
			e.links = make([]linkRef, len(st.Links))
		}
		for i, l := range st.Links {
			e.links[i] = linkRef{key: l.Key, target: l.Target}
			if l.Target == "" {
				if msg := brokenLink(writtenOf(l, e.path)); !contains(problems, msg) {
					problems = append(problems, msg)
				}
			}
		}
		m.idx.addUnlinked(e) // linked below, all at once
		if m.idx.groupSize(e.lower) == 1 {
			m.idx.regroup(e.lower)
		} else {
			shared[e.lower] = true
		}
		all = append(all, stored{e: e, id: st.ID, problems: problems})
		return nil
	})
	if err != nil {
		m.idx = newIndex()
		return 0, nil, nil, err
	}
	for g := range shared {
		m.idx.regroup(g)
	}
	entries := make([]*entry, len(all))
	for i, s := range all {
		entries[i] = s.e
	}
	m.idx.linkers.buildLater(entries) // after the sync (Mirror.Sync), or at its first use
	m.racyNotes = maps.Clone(racy)    // as stored; the writes that follow update it
	m.restore = m.checkRestore(ctx, complete)
	// Resolving every link again reads the index only and writes each
	// entry's own links: it runs on every core, a share of the entries
	// each; the lint and the report are filled in order after. A note
	// whose links resolve as stored has the problems its stored targets
	// gave; a stamped store's links are known to resolve as stored
	// (checkRestore): they are not resolved again.
	changed := make([]bool, len(all))
	if m.restore != restoreStamped {
		parallel(len(all), func(from, to int) {
			for i := from; i < to; i++ {
				e := all[i].e
				if changed[i], _ = m.idx.resolveLinks(e); changed[i] {
					// Rare: the texts of the links now broken are
					// read back.
					all[i].problems = m.appendBroken(ctx, nil, e)
				}
			}
		})
	}
	var report lintReport
	for i, s := range all {
		report.add(s.e.path, m.lint.set(s.e.path, s.problems))
		if s.e.id != s.id || changed[i] {
			stale = append(stale, s.e)
		}
	}
	m.logLint(report)
	return len(all), stale, racy, nil
}

// restoreCheck is how a restore checked the links the store holds.
type restoreCheck int

const (
	// restoreResolved: every link was resolved again (the index may not
	// hold every stored note, or the store cannot stamp).
	restoreResolved restoreCheck = iota
	// restoreStampable: every link was resolved again over every note the
	// store holds; once what resolved otherwise is written again, the
	// store may be stamped (stampSyncedLocked).
	restoreStampable
	// restoreStamped: the store's stamp says its notes are those a
	// restore verified (restoreStampable, none resolved otherwise), so
	// their links resolve as stored: resolving them again is skipped.
	restoreStamped
)

// resolveStamp is what the vault stamps a store with once a restart
// found that every stored link resolves, by these rules, over exactly the
// stored notes, to its stored target (core.StatesStamper). A store
// stamped so, and not written since (the store tells), gives the same
// answer at the next restart: that restart keeps the stored targets. The
// rules are those of index.go (keys, candidates, pick) and of the IDs
// (assignIDs); change the version whenever they change, so that a store
// stamped by another version is checked again.
const resolveStamp = "vaultgraph links v2"

// checkRestore says whether a restore must resolve every stored link
// again. complete tells whether the index took every note the store
// gave: a note left out (racy, unknown, ignored now) is read again later
// and may answer to keys, which a stored target resolved with it in the
// set and the restart without it would disagree on.
func (m *Mirror) checkRestore(ctx context.Context, complete bool) restoreCheck {
	st := m.stamper()
	if st == nil || !complete {
		return restoreResolved
	}
	if stamp, err := st.StatesStamp(ctx, m.cfg.Project); err == nil && stamp == resolveStamp {
		m.log.Debug("vault: the store's links are stamped as resolved by these rules: not resolved again")
		return restoreStamped
	}
	return restoreStampable
}

// stamper returns the store's core.StatesStamper, nil when it has none.
func (m *Mirror) stamper() core.StatesStamper {
	if m.cfg.Stamper != nil {
		return m.cfg.Stamper
	}
	st, _ := m.cfg.Store.(core.StatesStamper)
	return st
}

// stampSyncedLocked stamps the store at the end of a first sync that
// ended without error (err) and left nothing to write, when the index
// vouches for every note the store holds (m.agrees): the store held none
// of the project's notes (a cold sync: every note written from the
// index), or the restore took every stored note and checked its links
// (restoreStampable) or found them stamped (restoreStamped), and what
// disagreed was written again. Each link the store holds then has the
// target the index resolved by these rules over exactly the stored notes,
// which is what the stamp says. Any failed write since clears m.agrees.
// The store records the stamp only if no other process wrote since this
// one opened it or last wrote to it.
func (m *Mirror) stampSyncedLocked(ctx context.Context, err error) {
	st := m.stamper()
	if err != nil || !m.agrees || len(m.pending) > 0 || st == nil {
		return
	}
	if stampHook != nil {
		stampHook()
	}
	if err := st.StampStates(ctx, m.cfg.Project, resolveStamp); err != nil {
		m.log.Debug("vault: cannot stamp the store", "err", err)
		return
	}
	m.log.Debug("vault: the store's links stamped as resolved by these rules")
}

// stampHook, when set (tests), runs after a sync's writes and before
// its stamp.
var stampHook func()

// requeueLocked queues the notes of entries the store holds wrongly (see
// restoreLocked) that no change queued already, reading their files.
func (m *Mirror) requeueLocked(ctx context.Context, stale []*entry) {
	for _, e := range stale {
		if m.idx.byPath[e.path] != e {
			continue // gone since
		}
		if _, queued := m.pending[e.id]; queued {
			continue
		}
		p, st, err := m.load(e.path)
		if err != nil {
			m.loadFailed(e.path, err)
			m.agrees = false // the store keeps the targets the index found stale
			continue
		}
		if p.note.Hash != e.hash {
			// Changed without a new size or mtime: apply it as a change.
			m.applyLocked(ctx, []fileChange{{path: e.path, parsed: p, stat: st}})
			continue
		}
		m.pending[e.id] = m.noteOf(e, p)
	}
}

// writtenOf is the target of a stored link as it was written (for the
// "Broken link" warning), read again from its Raw text; its key when Raw
// is not a link this parser reads. It is a window into Raw (or the key):
// a caller keeping it beyond the store's call copies it.
func writtenOf(l core.Link, notePath string) string {
	raw := l.Raw
	if w, ok := plainWikilinkTarget(raw); ok && isKeyOf(w, l.Key) {
		return w // most links: no parse
	}
	var spans []linkSpan
	if !isMarkdownLink(raw) {
		spans = scanWikilinks(nil, []byte(raw), raw, 0, dirOf(notePath))
	} else {
		spans = scanMarkdownLinks(nil, []byte(raw), raw, 0, notePath)
	}
	if len(spans) != 1 {
		return l.Key
	}
	return spans[0].written
}

// isKeyOf reports whether LinkKey(w) == key, without lowercasing a copy
// of w when it is ASCII (once per link of a restart).
func isKeyOf(w, key string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			return LinkKey(w) == key
		}
	}
	w = strings.TrimSpace(w)
	for {
		if rest, ok := strings.CutPrefix(w, "/"); ok {
			w = rest
		} else if rest, ok := strings.CutPrefix(w, "./"); ok {
			w = rest
		} else {
			break
		}
	}
	if n := len(w) - 3; n >= 0 && strings.EqualFold(w[n:], ".md") {
		w = w[:n]
	}
	if len(w) != len(key) {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != key[i] {
			return false
		}
	}
	return true
}

// plainWikilinkTarget reads the target of a wikilink written without
// escapes ("[[target]]", "![[target#heading|alias]]"): the text before
// the first "#", "|" or "]]", trimmed.
func plainWikilinkTarget(raw string) (string, bool) {
	inner, ok := strings.CutPrefix(strings.TrimPrefix(raw, "!"), "[[")
	if !ok || !strings.HasSuffix(inner, "]]") || strings.Contains(inner, `\`) {
		return "", false
	}
	inner = inner[:len(inner)-2]
	if i := strings.IndexAny(inner, "#|"); i >= 0 {
		inner = inner[:i]
	}
	w := strings.TrimSpace(inner)
	return w, w != ""
}

// isMarkdownLink reports whether a link's Raw text is a markdown link
// ([text](path.md)) rather than a wikilink.
func isMarkdownLink(raw string) bool {
	return !strings.HasPrefix(raw, "[[") && !strings.HasPrefix(raw, "![[")
}

// writtenTexts returns e's links as written (target and kind), by link. A
// note the index read keeps them (entry.texts); a restored note's are read
// back, exactly, from whichever holds e's text as indexed (its hash): the
// note queued for the store, the store's record, or the file. They are
// kept once read (a rename asks for every link of a note). nil when none
// of the three holds that text any more (the file changed and the store
// failed to read): the caller names such a link by its key. m.mu must be
// held; concurrent calls on distinct entries are safe (restoreLocked).
func (m *Mirror) writtenTexts(ctx context.Context, e *entry) []linkText {
	if e.texts != nil || len(e.links) == 0 {
		return e.texts
	}
	// A canvas's file card is not told apart from a markdown link by its
	// Raw text (a bare vault path): a canvas's are read from its file.
	card := core.KindOf(e.path) == core.KindCanvas
	if n := m.pending[e.id]; !card && n != nil && n.Hash == e.hash {
		if t := textsOf(n.Links, e); t != nil {
			e.texts = t
			return t
		}
	}
	if e.id != "" && !card {
		notes, err := m.cfg.Store.GetNotes(ctx, m.cfg.Project, []string{e.id})
		if err == nil && len(notes) == 1 && notes[0].Hash == e.hash {
			if t := textsOf(notes[0].Links, e); t != nil {
				e.texts = t
				return t
			}
		}
		if err != nil {
			m.log.Debug("vault: cannot read a note's links back from the store", "path", e.path, "err", err)
		}
	}
	p, _, err := m.load(e.path)
	if err != nil || p.note.Hash != e.hash || len(p.spans) != len(e.links) {
		m.log.Warn("vault: cannot read back how a note's links are written: they are named by their keys", "path", e.path, "err", err)
		return nil
	}
	_, t := linkRefs(p)
	for i := range t {
		if p.spans[i].link.Key != e.links[i].key {
			return nil
		}
	}
	e.texts = t
	return t
}

// textsOf returns the targets as written of links, the links of e's text
// as a store holds them (Raw and Key), nil when they are not e's (another
// count or key: never for the same text, but a store is not trusted to be
// consistent). The texts are copies: a store may hand out windows into
// memory it reuses.
func textsOf(links []core.Link, e *entry) []linkText {
	if len(links) != len(e.links) {
		return nil
	}
	t := make([]linkText, len(links))
	for i, l := range links {
		if l.Key != e.links[i].key {
			return nil
		}
		t[i] = linkText{markdown: isMarkdownLink(l.Raw), written: strings.Clone(writtenOf(l, e.path))}
	}
	return t
}

// writtenText is the target as written of e's i-th link: its key when it
// cannot be read back (see writtenTexts).
func (m *Mirror) writtenText(ctx context.Context, e *entry, i int) string {
	return m.linkText(ctx, e, i).written
}

// linkText is e's i-th link as written: its target as written and its
// kind; when it cannot be read back (see writtenTexts), its key as a
// wikilink's (a rename then rewrites it only where it is written so).
func (m *Mirror) linkText(ctx context.Context, e *entry, i int) linkText {
	if t := m.writtenTexts(ctx, e); t != nil {
		return t[i]
	}
	return linkText{written: e.links[i].key}
}
