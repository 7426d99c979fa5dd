package vault

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/vaultgraph/vaultgraph/confine"
	"github.com/vaultgraph/vaultgraph/core"
)

// Rename moves the note at the vault-relative path from to the path to
// (folders created as needed; a folder that exists in another letter case
// is used as it is) and keeps the graph whole: every link that resolved to
// the note is rewritten to follow it, keeping its alias, heading, block
// reference and embed forms ([[Old|alias]] → [[New|alias]]), with the
// shortest text that resolves to it from the linking note's folder (the
// file name alone when that is enough, as Obsidian's "shortest path when
// possible"); the note's own links are adjusted when it changes folder;
// and links of other notes that the new name would take over are given a
// longer form that keeps their target (see planRewrites). The move is
// journaled: a crash at any instant leaves a journal that the next start
// of any vaultgraph process on the vault finishes (see journal.go).
//
// A note at to (or at a path that looks the same) gives core.ErrExists; a
// missing from gives core.ErrNotFound.
func (w *Writer) Rename(ctx context.Context, from, to string) (*core.RenameReport, error) {
	from, err := w.m.cleanNotePath(from)
	if err != nil {
		return nil, err
	}
	to, err = w.m.cleanNewNotePath(to)
	if err != nil {
		return nil, err
	}
	if err := w.lock(ctx); err != nil {
		return nil, err
	}
	defer w.unlock()
	if from, err = w.m.existingNoteCase(from); err != nil {
		return nil, err
	}
	if w.m.idx.byPath[from] == nil {
		return nil, fmt.Errorf("vault: rename %s: %w", from, core.ErrNotFound)
	}
	dir, err := w.m.existingDirCase(dirOf(to))
	if err != nil {
		return nil, err
	}
	to = joinPath(dir, path.Base(to))
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
// link-safe and no other note is at to or at a path that looks the same
// (a case-only rename of from itself is fine).
func (w *Writer) checkFree(from, to string) error {
	if strings.ContainsAny(path.Base(to), newNameChars) {
		return fmt.Errorf("vault: rename to %s: %w: a note name may not contain any of %s", to, core.ErrInvalidPath, newNameChars)
	}
	for _, p := range w.m.idx.groupPaths(groupKey(to)) {
		if p != from {
			return fmt.Errorf("vault: rename to %s: %w", to, core.ErrExists)
		}
	}
	if groupKey(from) != groupKey(to) {
		if _, err := w.m.fs.Stat(to); err == nil {
			return fmt.Errorf("vault: rename to %s: %w", to, core.ErrExists)
		}
	}
	return nil
}

// renameLocked moves from to to (both free, checked) and rewrites links;
// it returns the report and the note now at to. m.mu must be held.
//
// The order makes a crash harmless: the journal is written (and flushed)
// first; then the file moves; then every linking file is rewritten, each
// one a compare-and-write that re-applies its edit when an editor changed
// the file meanwhile; then the rewrites are flushed to disk at once, the
// index and the store updated, and the journal removed.
func (w *Writer) renameLocked(ctx context.Context, from, to string) (*core.RenameReport, *core.Note, error) {
	m := w.m
	e := m.idx.byPath[from]
	report := &core.RenameReport{OldID: e.id}
	start := time.Now()
	phase := func(name string) {
		m.log.Debug("vault: rename phase", "phase", name, "seconds", time.Since(start).Seconds())
		start = time.Now()
	}
	plans := m.planRewrites(ctx, setChange{moves: map[string]string{from: to}})
	phase("plan")
	j, err := m.writeJournal(journalEntry{Op: "rename", From: from, To: to, Files: journalFiles(plans)})
	if err != nil {
		return nil, nil, err
	}
	if err := m.moveFile(from, to, groupKey(from) == groupKey(to)); err != nil {
		m.dropJournal(j)
		return nil, nil, err
	}
	phase("journal and move")
	rewritten, counts, links, rerr := m.rewriteFilesCounted(plans, confine.WriteOptions{NoSync: true})
	phase("rewrite")
	if err := m.fs.SyncAll(); err != nil && rerr == nil {
		rerr = fileError("flush", to, err)
	}
	phase("flush")
	report.LinksChanged = links
	paths := []string{to}
	for _, p := range rewritten {
		report.FilesChanged++
		if p != to {
			paths = append(paths, p)
		}
	}
	note, err := w.applyPaths(ctx, to, paths, []fileChange{{path: from, movedTo: to}})
	phase("index and store")
	if rerr != nil {
		// The journal stays: the next start finishes the rewrites.
		return nil, nil, rerr
	}
	m.dropJournal(j)
	if err != nil {
		return nil, nil, err
	}
	report.NewID = note.ID
	report.Relinked = m.relinked(rewritten, counts, to) // not the note's own links
	return report, note, nil
}

// rewriteFiles applies plans to their files, a few at a time (each is a
// read, a parse and a compare-and-write), and returns the paths it wrote
// and how many links changed. A file that is gone is skipped; the first
// other failure is returned after the rest are done.
func (m *Mirror) rewriteFiles(plans []*fileRewrite, opts confine.WriteOptions) (written []string, links int, err error) {
	written, _, links, err = m.rewriteFilesCounted(plans, opts)
	return written, links, err
}

// rewriteFilesCounted is rewriteFiles that also gives how many links
// changed in each file written, in the order of written.
func (m *Mirror) rewriteFilesCounted(plans []*fileRewrite, opts confine.WriteOptions) (written []string, counts []int, links int, err error) {
	type result struct {
		path string
		n    int
		err  error
	}
	results := make([]result, len(plans))
	inParallel(context.Background(), len(plans), runtime.GOMAXPROCS(0), func(i int) {
		p := plans[i]
		n := 0
		_, _, err := m.modifyFile(p.path, opts, func(raw []byte) ([]byte, error) {
			out, changed := applyRewrite(p, raw)
			n = changed
			if changed == 0 {
				return nil, errUnchanged
			}
			return out, nil
		})
		results[i] = result{p.path, n, err}
	})
	for _, r := range results {
		switch {
		case r.err != nil && !isNotFound(r.err):
			if err == nil {
				err = r.err
			}
		case r.n > 0:
			written = append(written, r.path)
			counts = append(counts, r.n)
			links += r.n
		}
	}
	return written, counts, links, err
}

// applyRewrite returns a note file with the links plan names given their
// new targets, and how many links changed. It parses raw afresh, so it
// applies as well to a file an editor changed since the plan was made.
func applyRewrite(plan *fileRewrite, raw []byte) ([]byte, int) {
	if core.KindOf(plan.path) == core.KindCanvas {
		return applyCanvasRewrite(plan, raw)
	}
	p := parseNote(plan.path, raw)
	var edits []linkEdit
	for _, s := range p.spans {
		if s.fixed {
			continue
		}
		t, ok := plan.texts[linkText{markdown: s.markdown, written: s.written}]
		if !ok {
			continue
		}
		if s.markdown {
			t = markdownDestPath(s, raw[p.bom:], t)
		}
		edits = append(edits, linkEdit{s, t})
	}
	if len(edits) == 0 {
		return raw, 0
	}
	return applyEdits(&linkRewrite{raw: raw, parsed: p, edits: edits})
}

// linkRewrite is a file and the edits of its links.
type linkRewrite struct {
	raw    []byte
	parsed parsedNote
	edits  []linkEdit
}

// linkEdit replaces the target part of one link.
type linkEdit struct {
	span linkSpan
	text string
}

// markdownDestPath is the destination path of the markdown link s of
// text to give it the decoded path p: as it is in <angle brackets>, else
// URL-escaped as the link was: every character beyond ASCII escaped when
// the link escaped one, else only what would end or change the
// destination (blanks, "%", "#", "?", "<", ">", parentheses, control
// characters).
func markdownDestPath(s linkSpan, text []byte, p string) string {
	if s.angle {
		return p
	}
	old := string(text[s.tStart:s.tEnd])
	if escapesNonASCII(old) {
		esc := (&url.URL{Path: p}).EscapedPath()
		return strings.NewReplacer("(", "%28", ")", "%29").Replace(esc)
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c <= ' ' || c == 0x7f || strings.IndexByte("%#?<>()[]", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// escapesNonASCII reports whether a URL path escapes a byte beyond ASCII
// ("%C3%A9").
func escapesNonASCII(p string) bool {
	for i := 0; i+2 < len(p); i++ {
		if p[i] == '%' && strings.IndexByte("89ABCDEFabcdef", p[i+1]) >= 0 {
			return true
		}
	}
	return false
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
