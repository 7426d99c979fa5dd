package vault

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
)

// Rename moves the note at the vault-relative path from to the path to
// (folders created as needed) and keeps the graph whole: every wikilink
// and markdown link that resolved to the note is rewritten in the linking
// files, keeping its alias, heading, block reference and embed forms
// ([[Old|alias]] → [[New|alias]]), and the note's own relative markdown
// links are adjusted when it changes folder. A rewritten wikilink uses
// the new file name alone when no other note has that name, else the
// vault path without extension, as Obsidian's "shortest path when
// possible" does. Each file is rewritten atomically. A note at to (or at
// a path differing only by letter case) gives core.ErrExists; a missing
// from gives core.ErrNotFound. Links of other notes that resolved to a
// different note are not touched, even if the new name now captures them.
func (w *Writer) Rename(ctx context.Context, from, to string) (*core.RenameReport, error) {
	from, err := w.m.cleanNotePath(from)
	if err != nil {
		return nil, err
	}
	to, err = w.m.cleanNotePath(to)
	if err != nil {
		return nil, err
	}
	if err := w.lock(); err != nil {
		return nil, err
	}
	defer w.unlock()
	if w.m.idx.byPath[from] == nil {
		return nil, fmt.Errorf("vault: rename %s: %w", from, core.ErrNotFound)
	}
	if from == to {
		id := w.m.idx.byPath[from].id
		return &core.RenameReport{OldID: id, NewID: id}, nil
	}
	if err := w.checkFree(from, to); err != nil {
		return nil, err
	}
	report, _, err := w.renameLocked(ctx, from, to)
	return report, err
}

// newNameChars may not appear in the name of a note vaultgraph creates:
// they would end or split a wikilink to it.
const newNameChars = "#^[]|"

// checkFree reports whether the note at from may move to to: to's name is
// link-safe and no other note is at to or at a path differing only by
// letter case (a case-only rename of from itself is fine).
func (w *Writer) checkFree(from, to string) error {
	if strings.ContainsAny(path.Base(to), newNameChars) {
		return fmt.Errorf("vault: rename to %s: %w: a note name may not contain any of %s", to, core.ErrInvalidPath, newNameChars)
	}
	for _, p := range w.m.idx.groups[strings.ToLower(to)] {
		if p != from {
			return fmt.Errorf("vault: rename to %s: %w", to, core.ErrExists)
		}
	}
	if !strings.EqualFold(from, to) {
		if _, err := os.Lstat(w.m.abs(to)); err == nil {
			return fmt.Errorf("vault: rename to %s: %w", to, core.ErrExists)
		}
	}
	return nil
}

// linkRewrite is a linking file and the links in it to rewrite.
type linkRewrite struct {
	e      *entry
	path   string // where the file is when it is rewritten
	raw    []byte
	parsed parsedNote
	edits  []linkEdit
}

// linkEdit replaces the target part of one link.
type linkEdit struct {
	span linkSpan
	text string
}

// renameLocked moves from to to (both free, checked) and rewrites links;
// it returns the report and the note now at to. m.mu must be held.
func (w *Writer) renameLocked(ctx context.Context, from, to string) (*core.RenameReport, *core.Note, error) {
	m := w.m
	e := m.idx.byPath[from]
	oldID := e.id

	plans, err := w.planRewrites(e, from, to)
	if err != nil {
		return nil, nil, err
	}
	fromAbs, toAbs := m.abs(from), m.abs(to)
	if err := os.MkdirAll(filepath.Dir(toAbs), 0o755); err != nil {
		return nil, nil, core.NewProviderError("vault: create folder for "+to, err)
	}
	if err := m.checkNoSymlink(to); err != nil {
		return nil, nil, fmt.Errorf("vault: rename to %s: %w", to, err)
	}
	if strings.EqualFold(from, to) {
		err = os.Rename(fromAbs, toAbs) // a case-only rename: the same file on some file systems
	} else {
		err = moveNoClobber(fromAbs, toAbs)
	}
	if errors.Is(err, core.ErrExists) {
		return nil, nil, fmt.Errorf("vault: rename to %s: %w", to, core.ErrExists)
	}
	if err != nil {
		return nil, nil, core.NewProviderError("vault: rename "+from, err)
	}
	syncDir(filepath.Dir(fromAbs))
	syncDir(filepath.Dir(toAbs))

	report := &core.RenameReport{OldID: oldID}
	paths := []string{to}
	var firstErr error
	for _, p := range plans {
		out, n := applyEdits(p)
		if n == 0 {
			continue
		}
		if err := writeAtomic(m.abs(p.path), out, false); err != nil {
			firstErr = err
			break
		}
		report.FilesChanged++
		report.LinksChanged += n
		if p.path != to {
			paths = append(paths, p.path)
		}
	}
	note, err := w.applyPaths(ctx, to, paths, []fileChange{{path: from}})
	if firstErr != nil {
		return nil, nil, firstErr
	}
	if err != nil {
		return nil, nil, err
	}
	report.NewID = note.ID
	return report, note, nil
}

// planRewrites reads every file with a link that resolves to e (and e's
// own file) and works out the new text of each link to change, using the
// index as it is before the move.
func (w *Writer) planRewrites(e *entry, from, to string) ([]*linkRewrite, error) {
	x := w.m.idx
	linkers := map[*entry]bool{e: true}
	for _, k := range e.keys {
		for l := range x.linkers[k] {
			for _, ref := range l.links {
				if ref.target == e.id {
					linkers[l] = true
					break
				}
			}
		}
	}
	newWiki := w.wikiTarget(e, to)
	fromDir, toDir := path.Dir(from), path.Dir(to)
	var plans []*linkRewrite
	for _, l := range sortedEntries(linkers) {
		raw, err := os.ReadFile(w.m.abs(l.path))
		if err != nil {
			return nil, core.NewProviderError("vault: read "+l.path, err)
		}
		p := &linkRewrite{e: l, path: l.path, raw: raw, parsed: parseNote(l.path, raw)}
		linkerDir := path.Dir(l.path)
		if l == e {
			p.path, linkerDir = to, toDir
		}
		for _, s := range p.parsed.spans {
			pointsHere := x.resolve(s.link.Key) == e.id
			switch {
			case pointsHere && !s.markdown:
				p.edits = append(p.edits, linkEdit{s, newWiki})
			case pointsHere:
				p.edits = append(p.edits, linkEdit{s, markdownTarget(s, linkerDir, to)})
			case l == e && s.markdown && fromDir != toDir && !strings.HasPrefix(s.written, "/"):
				// The moved note's own relative link to another file.
				target := path.Join(fromDir, s.written)
				p.edits = append(p.edits, linkEdit{s, markdownTarget(s, toDir, target)})
			}
		}
		if len(p.edits) > 0 {
			plans = append(plans, p)
		}
	}
	return plans, nil
}

// wikiTarget is the target text a wikilink to the note moving to `to`
// gets: its file name when no other note answers to that name, else its
// vault path without extension.
func (w *Writer) wikiTarget(e *entry, to string) string {
	base := stripExt(path.Base(to))
	others := 0
	for _, c := range w.m.idx.cands[LinkKey(base)] {
		if c != e {
			others++
		}
	}
	if others == 0 {
		return base
	}
	return stripExt(to)
}

// markdownTarget is the destination path of a markdown link from a note in
// folder dir to the vault path target: relative, or vault-absolute when
// the link was written so; URL-escaped unless written in <angle brackets>.
func markdownTarget(s linkSpan, dir, target string) string {
	p := "/" + target
	if !strings.HasPrefix(s.written, "/") {
		p = relPath(dir, target)
	}
	if s.angle {
		return p
	}
	esc := (&url.URL{Path: p}).EscapedPath()
	return strings.NewReplacer("(", "%28", ")", "%29").Replace(esc)
}

// relPath returns the path of target relative to folder dir, both
// vault-relative ("." or "" is the root).
func relPath(dir, target string) string {
	split := func(p string) []string {
		if p == "" || p == "." {
			return nil
		}
		return strings.Split(p, "/")
	}
	a, b := split(dir), split(target)
	i := 0
	for i < len(a) && i < len(b)-1 && a[i] == b[i] {
		i++
	}
	var out []string
	for range a[i:] {
		out = append(out, "..")
	}
	return strings.Join(append(out, b[i:]...), "/")
}

// applyEdits returns the file with its edits applied and how many links
// actually changed.
func applyEdits(p *linkRewrite) ([]byte, int) {
	sort.Slice(p.edits, func(i, j int) bool { return p.edits[i].span.tStart < p.edits[j].span.tStart })
	bom := p.parsed.bom
	var b strings.Builder
	raw := string(p.raw)
	last, changed := 0, 0
	for _, ed := range p.edits {
		start, end := bom+ed.span.tStart, bom+ed.span.tEnd
		if raw[start:end] == ed.text {
			continue
		}
		b.WriteString(raw[last:start])
		b.WriteString(ed.text)
		last = end
		changed++
	}
	b.WriteString(raw[last:])
	return []byte(b.String()), changed
}
