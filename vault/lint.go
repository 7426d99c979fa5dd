package vault

import (
	"sort"
	"sync"
)

// Lint holds the problems the vault's notes have now, by note path:
// broken links, frontmatter that does not parse, tags dropped as
// duplicates, files too large or unreadable. They are for the person who
// keeps the vault: each is logged once when it appears (at debug level;
// a burst of edits logs one INFO summary, and the first sync one INFO
// line with the problems new since the last one logged, lintlog.go),
// `vaultgraph check` lists them all, and a tool call's answer carries only
// the problems of the notes that call wrote (core.AddCallWarnings). It is
// safe for concurrent use.
type Lint struct {
	mu      sync.Mutex
	byPath  map[string][]string
	changed bool // a problem appeared or went since takeChanged
}

func newLint() *Lint { return &Lint{byPath: map[string][]string{}} }

// LintEntry is one note's problems.
type LintEntry struct {
	Path     string
	Problems []string
}

// set records the problems of the note at path (none: it has none) and
// returns those it did not have before.
func (l *Lint) set(path string, problems []string) (added []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	old := l.byPath[path]
	for _, p := range problems {
		if !contains(old, p) {
			added = append(added, p)
		}
	}
	if len(added) > 0 || len(problems) < len(old) {
		l.changed = true
	} else {
		for _, p := range old {
			if !contains(problems, p) {
				l.changed = true
				break
			}
		}
	}
	if len(problems) == 0 {
		delete(l.byPath, path)
	} else {
		l.byPath[path] = problems
	}
	return added
}

// takeChanged reports whether a problem appeared or went since the last
// call.
func (l *Lint) takeChanged() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.changed
	l.changed = false
	return c
}

// get returns the problems recorded for path.
func (l *Lint) get(path string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byPath[path]
}

// All returns every note's problems, by path.
func (l *Lint) All() []LintEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]LintEntry, 0, len(l.byPath))
	for p, probs := range l.byPath {
		out = append(out, LintEntry{Path: p, Problems: append([]string(nil), probs...)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Count returns how many notes have problems and how many problems there
// are in all.
func (l *Lint) Count() (notes, problems int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, probs := range l.byPath {
		problems += len(probs)
	}
	return len(l.byPath), problems
}

// lintReport is what one applyLocked found new, for the log.
type lintReport struct {
	notes    int
	problems []string // "path: problem", new ones only
}

func (r *lintReport) add(path string, added []string) {
	if len(added) == 0 {
		return
	}
	r.notes++
	for _, a := range added {
		r.problems = append(r.problems, path+": "+a)
	}
}

// logLint logs what r found: each problem at debug level, and, outside the
// first sync (which reports once at its end: reportLintLocked), one INFO
// line with the first few of those not logged before. The caller holds m.mu.
func (m *Mirror) logLint(r lintReport) {
	for _, p := range r.problems {
		m.log.Debug("vault: note problem", "problem", p)
	}
	if m.lintQuiet || !m.lint.takeChanged() {
		return
	}
	m.reportLintLocked(false)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
