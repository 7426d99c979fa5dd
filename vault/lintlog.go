package vault

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// lintLogHeader starts the file of the vault problems already logged.
const lintLogHeader = "vaultgraph lint logged v1"

// lintLog remembers which vault problems were logged, as a fingerprint per
// problem (a 64-bit hash of its note path and text) kept in a file of the
// state folder (Config.LintLog), so that a start logs only the problems
// that are new since the last one logged, not the whole vault's again.
// Without a file it remembers for the process only. It is safe for
// concurrent use.
type lintLog struct {
	mu     sync.Mutex
	path   string
	logged map[uint64]struct{}
}

// loadLintLog reads the fingerprints kept at path ("": none). A missing or
// unreadable file is an empty one: everything is new.
func loadLintLog(path string) (*lintLog, error) {
	l := &lintLog{path: path, logged: map[uint64]struct{}{}}
	if path == "" {
		return l, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	if !sc.Scan() || sc.Text() != lintLogHeader {
		return l, fmt.Errorf("%s: not a file of logged problems", path)
	}
	for sc.Scan() {
		h, err := strconv.ParseUint(sc.Text(), 16, 64)
		if err != nil {
			return &lintLog{path: path, logged: map[uint64]struct{}{}}, fmt.Errorf("%s: %w", path, err)
		}
		l.logged[h] = struct{}{}
	}
	return l, nil
}

// lintFingerprint is one problem's fingerprint.
func lintFingerprint(path, problem string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write([]byte(problem))
	return h.Sum64()
}

// update takes the vault's problems now: it returns those not logged
// before (as "path: problem", in path order, and how many notes they are
// in) and how many logged ones are gone, and remembers the problems now
// as logged, writing the file when that changed.
func (l *lintLog) update(entries []LintEntry) (fresh []string, notes, gone int, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := make(map[uint64]struct{}, len(l.logged))
	for _, e := range entries {
		counted := false
		for _, p := range e.Problems {
			h := lintFingerprint(e.Path, p)
			now[h] = struct{}{}
			if _, ok := l.logged[h]; !ok {
				fresh = append(fresh, e.Path+": "+p)
				if !counted {
					notes, counted = notes+1, true
				}
			}
		}
	}
	for h := range l.logged {
		if _, ok := now[h]; !ok {
			gone++
		}
	}
	if len(fresh) == 0 && gone == 0 {
		return nil, 0, 0, nil
	}
	l.logged = now
	return fresh, notes, gone, l.saveLocked()
}

// saveLocked writes the fingerprints through a temporary file renamed
// over the old one.
func (l *lintLog) saveLocked() error {
	if l.path == "" {
		return nil
	}
	hs := make([]uint64, 0, len(l.logged))
	for h := range l.logged {
		hs = append(hs, h)
	}
	slices.Sort(hs)
	var b strings.Builder
	b.WriteString(lintLogHeader + "\n")
	for _, h := range hs {
		fmt.Fprintf(&b, "%016x\n", h)
	}
	dir := filepath.Dir(l.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(l.path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if _, err := tmp.WriteString(b.String()); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), l.path)
}

// reportLintLocked logs the vault's problems that were not logged before:
// one INFO line with how many and the first three (each is at debug level
// already). After the first sync (first) it also says how many logged
// problems are gone, which a live edit does not (fixing a link is not
// news). The caller holds m.mu.
func (m *Mirror) reportLintLocked(first bool) {
	fresh, notes, gone, err := m.lintLog.update(m.lint.All())
	if err != nil {
		m.log.Debug("vault: cannot keep which problems were logged", "err", err)
	}
	_, total := m.lint.Count()
	switch {
	case len(fresh) > 0:
		args := []any{"notes", notes, "problems", len(fresh), "total", total}
		if first && gone > 0 {
			args = append(args, "fixed", gone)
		}
		m.log.Info("vault: new problems in notes (vaultgraph check lists them all)",
			append(args, "first", strings.Join(fresh[:min(3, len(fresh))], "; "))...)
	case first && gone > 0:
		m.log.Info("vault: problems in notes fixed since the last start", "fixed", gone, "total", total)
	}
}
