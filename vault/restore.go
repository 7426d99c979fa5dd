package vault

import (
	"context"
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
		e  *entry
		id string
	}
	var all []stored
	racy = map[string]bool{}
	err = m.cfg.Store.NoteStates(ctx, m.cfg.Project, func(st core.NoteState) error {
		if st.Size == racySize {
			racy[st.ID] = true
		}
		if !st.Known() || m.idx.byPath[st.Path] != nil || !isNotePath(st.Path) || m.ignore.skip(st.Path) {
			if st.Path != "" && st.Hash != "" && !st.Known() {
				if m.unread == nil {
					m.unread = map[string]string{}
				}
				m.unread[st.Path] = st.Hash
			}
			return nil
		}
		e := newEntry(st.Path)
		e.hash, e.size, e.mtime = st.Hash, st.Size, st.ModTime
		// The links start with the store's targets: resolving them below
		// reports whether the store resolved any otherwise.
		e.links = make([]linkRef, len(st.Links))
		for i, l := range st.Links {
			e.links[i] = linkRef{key: l.Key, written: writtenOf(l, st.Path), target: l.Target, markdown: isMarkdownLink(l.Raw)}
		}
		m.idx.add(e)
		all = append(all, stored{e: e, id: st.ID})
		return nil
	})
	if err != nil {
		m.idx = newIndex()
		return 0, nil, nil, err
	}
	for g := range m.idx.groups {
		m.idx.regroup(g)
	}
	var report lintReport
	for _, s := range all {
		changed, _ := m.idx.resolveLinks(s.e)
		report.add(s.e.path, m.lint.set(s.e.path, appendBroken(nil, s.e)))
		if s.e.id != s.id || changed {
			stale = append(stale, s.e)
		}
	}
	logLint(m.log, report)
	return len(all), stale, racy, nil
}

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
// is not a link this parser reads. It is a window into Raw: the index
// keeps Raw's bytes alive, which a store holds anyway (the embedded one)
// or which are a few dozen bytes a link (Neo4j's decoded states).
func writtenOf(l core.Link, notePath string) string {
	raw := l.Raw
	if w, ok := plainWikilinkTarget(raw); ok && isKeyOf(w, l.Key) {
		return w // most links: no parse
	}
	var spans []linkSpan
	if !isMarkdownLink(raw) {
		spans = scanWikilinks([]byte(raw), raw, 0)
	} else {
		spans = scanMarkdownLinks([]byte(raw), raw, 0, notePath)
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
