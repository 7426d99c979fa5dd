package vault

import (
	"context"
	"path"
	"slices"
	"sort"
	"strings"
)

// Writes keep the meaning of every link they do not own. A write that
// adds, moves or removes a note can change what other links resolve to:
// a new note beside a linking note takes over its [[Name]] (the folder
// rule), a moved note takes its own links to another folder, a deleted
// note leaves its name to the next candidate. Before such a write, the
// planner works out, from the index alone, how every link that could
// change will resolve afterwards, and which text each must be given so
// that it still points where it did: links to a moved note follow it,
// links to a deleted note stay unresolved, every other link keeps its
// target (with a longer path, [[b/Target]], where the short one would be
// taken over). Links that resolved to nothing may resolve to a note the
// write creates: that is filling a "ghost" link, as Obsidian does.

// setChange is how a write is about to change the set of notes.
type setChange struct {
	add    []string          // note paths about to appear
	remove []string          // note paths about to go
	moves  map[string]string // note path → its new path
}

// afterView answers how links will resolve once a setChange is made,
// without changing the index.
type afterView struct {
	x       *index
	gone    map[*entry]bool   // entries removed or moved away
	added   []*entry          // entries about to appear (moved ones included), not in x
	movedTo map[*entry]*entry // entry → its entry at the new path
	// format is the vault's Obsidian newLinkFormat: the text a link
	// written by name or path gets when it must change ("shortest",
	// "relative" or "absolute"; see textFor).
	format string
}

func newAfterView(x *index, ch setChange) *afterView {
	v := &afterView{x: x, gone: map[*entry]bool{}, movedTo: map[*entry]*entry{}}
	for _, p := range ch.remove {
		if e := x.byPath[p]; e != nil {
			v.gone[e] = true
		}
	}
	for from, to := range ch.moves {
		e := x.byPath[from]
		if e == nil {
			continue
		}
		v.gone[e] = true
		ne := newEntry(to)
		ne.id = groupKey(to)
		v.movedTo[e] = ne
		v.added = append(v.added, ne)
	}
	for _, p := range ch.add {
		ne := newEntry(p)
		ne.id = groupKey(p)
		v.added = append(v.added, ne)
	}
	return v
}

// cands returns the notes that will answer to key, in resolution order.
func (v *afterView) cands(key string) []*entry {
	base := v.x.candidates(key)
	var extra []*entry
	for _, e := range v.added {
		if slices.Contains(e.keys(), key) {
			extra = append(extra, e)
		}
	}
	if len(extra) == 0 && !slices.ContainsFunc(base, func(e *entry) bool { return v.gone[e] }) {
		return base
	}
	out := make([]*entry, 0, len(base)+len(extra))
	for _, e := range base {
		if !v.gone[e] {
			out = append(out, e)
		}
	}
	out = append(out, extra...)
	sort.SliceStable(out, func(i, j int) bool { return better(out[i], out[j]) })
	return out
}

// resolve returns the entry a link on key written in folder dir will
// resolve to, nil for none.
func (v *afterView) resolve(key, dir string) *entry { return pick(v.cands(key), key, dir) }

// follow maps a link's target before the write to the one it must have
// after: a moved note's new entry, nil for a removed note, else itself.
func (v *afterView) follow(e *entry) *entry {
	if e == nil {
		return nil
	}
	if to, ok := v.movedTo[e]; ok {
		return to
	}
	if v.gone[e] {
		return nil
	}
	return e
}

// textFor returns the target text a link written as w (a wikilink's
// target, a markdown link's decoded path) needs, in a note of folder dir,
// to resolve to e, in the form w has: relative to the note ("./", "../")
// stays relative, from the vault root ("/...") stays so, and any other
// gets the text the vault's newLinkFormat gives: the shortest text that
// resolves to e (its file name, else more of its path: Obsidian's default
// "shortest path when possible"), its vault path ("absolute"), or its
// path relative to dir ("relative", with "./" when read by name it would
// find another note); written with an extension, it keeps one. false when
// no such text resolves to e.
func (v *afterView) textFor(w string, e *entry, dir string) (string, bool) {
	stem := stripExt(e.path)
	ext := ""
	if hasNoteExt(w) {
		ext = e.path[len(stem):]
	}
	var t string
	switch {
	case isRelative(w):
		t = relPath(dir, stem)
		if !strings.HasPrefix(t, "../") {
			t = "./" + t
		}
	case strings.HasPrefix(w, "/"):
		t = "/" + stem
	case v.format == "absolute":
		t = stem
	case v.format == "relative":
		t = relPath(dir, stem)
		if v.resolve(linkKeyIn(t, dir), dir) != e && !strings.HasPrefix(t, "../") {
			t = "./" + t // read by name, it would find another note
		}
	default:
		segs := strings.Split(stem, "/")
		for i := len(segs) - 1; i >= 0; i-- {
			t := strings.Join(segs[i:], "/")
			if v.resolve(LinkKey(t), dir) == e {
				return t + ext, true
			}
		}
		return "", false
	}
	if v.resolve(linkKeyIn(t, dir), dir) != e {
		return "", false
	}
	return t + ext, true
}

// hasNoteExt reports whether a link target as written ends in ".md" (in
// any letter case).
func hasNoteExt(w string) bool {
	return len(w) >= 3 && strings.EqualFold(w[len(w)-3:], ".md")
}

// linkText identifies the links of one file that must get one new target
// text: in one note, links written alike resolve alike.
type linkText struct {
	markdown bool
	card     bool // a canvas's file card: written is a vault path
	written  string
}

// fileRewrite is the new text of the links of one file.
type fileRewrite struct {
	from string // the file's path before the write
	path string // its path when rewritten (the new one for a moved note)
	// texts maps a link as written to its new target: a wikilink's text,
	// or a markdown link's vault path (made relative when applied).
	texts map[linkText]string
}

// planRewrites works out which links of which files must be rewritten for
// ch to keep the meaning of every link (see the top of this file). The
// index must be the state before ch. Links that cannot be kept (a deleted
// note's name that another note would then answer to under every spelling)
// are left as they are.
func (m *Mirror) planRewrites(ctx context.Context, ch setChange) []*fileRewrite {
	x := m.idx
	v := newAfterView(x, ch)
	v.format = m.obsidianSettings().NewLinkFormat
	affected := map[*entry]bool{}
	keys := map[string]bool{}
	for e := range v.gone {
		markAll(keys, e.keys())
	}
	for _, e := range v.added {
		markAll(keys, e.keys())
	}
	for k := range keys {
		for _, e := range x.linkers.of(k) {
			affected[e] = true
		}
	}
	for e := range v.movedTo {
		affected[e] = true
	}
	var plans []*fileRewrite
	for _, f := range sortedEntries(affected) {
		if v.gone[f] && v.movedTo[f] == nil {
			continue // the file itself is deleted
		}
		dirAfter, pathAfter := f.dir(), f.path
		moved := v.movedTo[f]
		if moved != nil {
			dirAfter, pathAfter = moved.dir(), moved.path
		}
		fr := &fileRewrite{from: f.path, path: pathAfter, texts: map[linkText]string{}}
		for i, l := range f.links {
			lt := m.linkText(ctx, f, i)
			if _, done := fr.texts[lt]; done {
				continue
			}
			before := x.resolveEntry(l.key, f.dir())
			want := v.follow(before)
			if before != nil && v.movedTo[before] != nil {
				// A link to the moved note shows its new name, even where
				// the old text would still find it (a case-only rename); a
				// canvas's file card, its new vault path.
				if lt.card {
					fr.texts[lt] = want.path
				} else if t, ok := v.textFor(lt.written, want, dirAfter); ok {
					fr.texts[lt] = t
				}
				continue
			}
			if moved != nil && isRelative(lt.written) {
				// The moving note's own relative link starts from its new
				// folder: it keeps its target, or the vault path it names.
				if want != nil {
					if t, ok := v.textFor(lt.written, want, dirAfter); ok && t != lt.written {
						fr.texts[lt] = t
					}
				} else if k := linkKeyIn(lt.written, f.dir()); k != "" {
					named := path.Join(f.dir(), strings.TrimSpace(lt.written))
					t := relPath(dirAfter, named)
					if !strings.HasPrefix(t, "../") {
						t = "./" + t
					}
					if t != lt.written {
						fr.texts[lt] = t
					}
				}
				continue
			}
			if v.resolve(l.key, dirAfter) == want || before == nil || lt.card {
				continue // unchanged, a ghost link that may be filled, or a file card (a whole path)
			}
			if want == nil {
				// Keep it unresolved: name the deleted note by its whole path.
				t := stripExt(before.path)
				if v.resolve(LinkKey(t), dirAfter) == nil && LinkKey(t) != l.key {
					if hasNoteExt(lt.written) {
						t = before.path
					}
					fr.texts[lt] = t
				}
				continue
			}
			if t, ok := v.textFor(lt.written, want, dirAfter); ok {
				fr.texts[lt] = t
			}
		}
		if len(fr.texts) > 0 || moved != nil {
			plans = append(plans, fr)
		}
	}
	return plans
}
