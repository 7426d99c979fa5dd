package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/vaultgraph/vaultgraph/confine"
	"github.com/vaultgraph/vaultgraph/core"
)

// fileStat is a note file as listed: vault-relative path, size, mtime.
type fileStat struct {
	path  string
	size  int64
	mtime time.Time
	racy  bool // read within racyWindow of mtime
	// ino is the file's inode number (0: unknown). Two files written in
	// one tick of the clock with the same size differ only in it, and a
	// swap of two folders' names can bring one to the other's path.
	ino uint64
}

// errTooLarge marks a note file over Config.MaxFileSize.
var errTooLarge = errors.New("file too large")

// walk lists the note files at and below the vault-relative folder under
// ("" for the root), in the order of a lexical walk (filepath.WalkDir's).
// Dot-files, ignored paths and symbolic links are skipped: following links
// could leave the vault or loop. An unreadable folder below under is
// logged and skipped. onDir, when not nil, is called for each folder
// before its entries are read, so a watch it adds misses nothing created
// afterwards.
//
// Each note file is stated relative to its open folder (statIn: fstatat
// on Linux), not by its path from the root: a restart states every note
// (100k at a time), and the kernel's lookup of each path's folders was
// most of that cost.
func (m *Mirror) walk(under string, onDir func(rel string)) ([]fileStat, error) {
	start := filepath.Join(m.cfg.Root, filepath.FromSlash(under))
	info, err := os.Lstat(start)
	if err != nil {
		return nil, err
	}
	rel, d := m.rel(start), fs.FileInfoToDirEntry(info)
	switch m.classify(rel, d) {
	case tempEntry:
		m.removeStaleTemp(rel, d)
		return nil, nil
	case skipEntry:
		return nil, nil
	case noteEntry:
		// A file where a folder was (a watch's event raced a change):
		// listed alone, as filepath.WalkDir would.
		return []fileStat{{path: rel, size: info.Size(), mtime: info.ModTime(), ino: confine.Inode(info)}}, nil
	}
	w := walker{m: m, onDir: onDir} // the index is not read: a restore fills it meanwhile
	if err := w.dir(start, rel, true); err != nil {
		return nil, err
	}
	return w.files, nil
}

// walker is one walk's state (see Mirror.walk).
type walker struct {
	m     *Mirror
	onDir func(rel string)
	files []fileStat
}

// dir lists the folder at path (vault-relative rel) and below. Only the
// walk's first folder (top) reports an error; a folder below it that
// cannot be read is logged and skipped.
func (w *walker) dir(path, rel string, top bool) error {
	if w.onDir != nil {
		w.onDir(rel)
	}
	f, err := os.Open(path)
	var entries []fs.DirEntry
	if err == nil {
		entries, err = f.ReadDir(-1)
		if err != nil {
			_ = f.Close()
		}
	}
	if err != nil {
		if top {
			return err
		}
		w.m.log.Warn("vault: skipping unreadable path", "path", rel, "err", err)
		return nil
	}
	defer f.Close()
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, d := range entries {
		name := d.Name()
		child := name
		if rel != "" {
			child = rel + "/" + name
		}
		switch w.m.classify(child, d) {
		case tempEntry:
			w.m.removeStaleTemp(child, d)
		case dirEntry:
			if err := w.dir(filepath.Join(path, name), child, false); err != nil {
				return err
			}
		case noteEntry:
			st, ok := statIn(f, name, d)
			if !ok {
				continue // removed while walking
			}
			st.path = child
			if len(w.files) == cap(w.files) {
				// Doubled, not append's ×1.25 for a long list: the
				// copies of a 100k walk were 34 MB of a restart's
				// garbage, now ~11.
				w.files = slices.Grow(w.files, max(len(w.files), 256))
			}
			w.files = append(w.files, st)
		}
	}
	return nil
}

// entryKind is what a walk does with a path it lists (Mirror.classify).
type entryKind int

const (
	skipEntry entryKind = iota // ignored, a symbolic link, or no note
	tempEntry                  // an atomic write's temporary or redo file: removeStaleTemp
	dirEntry                   // a folder: walked
	noteEntry                  // a note file: listed
)

// classify sorts the vault-relative path rel, listed as d, for a walk: the
// walk's first path and every entry below it by the same rules. Temporary
// files come before the ignore rules, so a killed write's leftovers are
// cleaned up even in an ignored folder; symbolic links are never followed
// (they could leave the vault or loop). The root ("") is never ignored.
func (m *Mirror) classify(rel string, d fs.DirEntry) entryKind {
	t := d.Type()
	switch {
	case t.IsRegular() && isTempName(d.Name()):
		return tempEntry
	case rel != "" && m.ignore.skip(rel), t&fs.ModeSymlink != 0:
		return skipEntry
	case d.IsDir():
		return dirEntry
	case t.IsRegular() && isNodePath(rel):
		return noteEntry
	}
	return skipEntry
}

// rel turns an absolute path under the root into a vault-relative one.
func (m *Mirror) rel(abs string) string {
	// Most paths (all of a walk's) are the root, a separator and the rest:
	// no filepath.Rel, which cleans both and compares them element by
	// element, once per file of the vault.
	root := m.cfg.Root
	if root != "" && len(abs) > len(root)+1 && abs[:len(root)] == root && os.IsPathSeparator(abs[len(root)]) && !os.IsPathSeparator(root[len(root)-1]) {
		if r := abs[len(root)+1:]; filepath.Clean(r) == r {
			return filepath.ToSlash(r)
		}
	}
	r, err := filepath.Rel(root, abs)
	if err != nil || r == "." {
		return ""
	}
	return filepath.ToSlash(r)
}

// abs turns a vault-relative path into an absolute one.
func (m *Mirror) abs(rel string) string {
	return filepath.Join(m.cfg.Root, filepath.FromSlash(rel))
}

// load reads and parses one note file. A missing file is an error matching
// fs.ErrNotExist; so is a path that is now a folder or a symbolic link.
func (m *Mirror) load(rel string) (*parsedNote, fileStat, error) {
	c, err := m.read(rel, "")
	return c.parsed, c.stat, err
}

// read reads one note file and parses it unless its content hash is
// known, which makes an unchanged file cost one read and one hash.
func (m *Mirror) read(rel, known string) (fileChange, error) {
	// The clock is read before the file: a goroutine held up after the
	// read (a busy machine can delay one by more than racyWindow) must not
	// make a read made within a clock tick of the change look safe.
	started := now()
	if core.KindOf(rel) == core.KindAttachment {
		return m.readAttachment(rel, known)
	}
	raw, st, err := m.readFile(rel)
	if err != nil {
		return fileChange{}, err
	}
	if afterReadHook != nil {
		afterReadHook(rel)
	}
	m.filesRead.Add(1)
	c := fileChange{path: rel, stat: st}
	c.stat.racy = started.Sub(st.mtime) < racyWindow
	if known != "" && hashOf(raw) == known {
		c.unchanged = true
		return c, nil
	}
	parsed := parseOwned(rel, raw) // raw is this note's alone from here on
	if c.stat.racy {
		parsed.note.Size = racySize // see racyWindow
	}
	c.parsed = &parsed
	return c, nil
}

// racyWindow: a file read within this time of its last modification may
// change again within the same tick of the file system's clock (Linux
// stamps mtimes from a clock that advances every few milliseconds) and
// keep its size, which a comparison of size and mtime cannot see. Such a
// note is marked racy in the index, so the next rescan reads it again (a
// rescan after a rewatch must not trust it: the event of the second change
// may have gone with the old watcher), and stored with Size racySize, so a
// restart reads its file instead of trusting the stored state
// (restore.go), as git does with "racily clean" index entries; it is
// rewritten only if its text changed, or (into a store that stamps) once
// its file is no longer racy, so that later restarts can restore it. A
// variable so that tests can widen it. File systems with coarser clocks
// (FAT's 2 s) are not covered.
var racyWindow = 100 * time.Millisecond

// now and afterReadHook let tests stand for a goroutine held up between
// reading a file and judging it racy.
var (
	now           = time.Now
	afterReadHook func(rel string)
)

// racySize is the Size of a note whose file was read within racyWindow of
// its last modification (core.Note.Size: negative, unknown).
const racySize = -2

// loadAll reads and parses files on Config.Workers goroutines and returns
// the changes in the order of files. Files that cannot be read are left
// out with a warning; a file gone meanwhile is left out silently.
func (m *Mirror) loadAll(ctx context.Context, files []fileStat, bar progress) ([]fileChange, error) {
	out := make([]fileChange, len(files))
	ok := make([]bool, len(files))
	readBack := m.readsBack()
	inParallel(ctx, len(files), m.cfg.Workers, func(i int) {
		p, st, err := m.load(files[i].path)
		bar.Add(1)
		if err != nil {
			m.loadFailed(files[i].path, err)
			return
		}
		// The index needs only the links' keys: the spans (where each
		// link is written, for rewrites) go now, not after the whole
		// vault is read, and so does the text when the write reads it
		// back (readsBack).
		refs, texts := linkRefs(p)
		out[i] = fileChange{path: st.path, parsed: p, stat: st, refs: refs, texts: texts}
		p.spans = nil
		if readBack {
			p.dropBody()
		}
		ok[i] = true
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	changes := out[:0]
	for i := range out {
		if ok[i] {
			changes = append(changes, out[i])
		}
	}
	return changes, nil
}

// loadFailed reports a note file that could not be read.
func (m *Mirror) loadFailed(rel string, err error) {
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, errTooLarge):
		var r lintReport
		r.add(rel, m.lint.set(rel, []string{fmt.Sprintf("skipped: larger than %d bytes", m.cfg.MaxFileSize)}))
		m.logLint(r)
	default:
		m.log.Warn("vault: cannot read note", "path", rel, "err", err)
		m.lint.set(rel, []string{"cannot read the file"})
	}
}

// staleTempAge is how old a temporary file of an atomic write must be
// before a walk removes it: younger ones may belong to a write under way
// in another vaultgraph process on the same vault.
const staleTempAge = time.Minute

// isTempName reports whether name is one of our atomic-write temporaries
// or redo files (package confine).
func isTempName(name string) bool {
	return confine.IsTempName(name) || confine.RedoTarget(name) != ""
}

// removeStaleTemp deals with what a killed process left behind: a
// temporary file of an atomic write is deleted (its note is whole under
// its real name: the temporary is only renamed into place once complete),
// and a redo file of a write in place is used to repair its note if the
// write was cut short (confine.Root.Recover), so crashes neither litter
// the vault nor leave half a note.
func (m *Mirror) removeStaleTemp(rel string, d fs.DirEntry) {
	if confine.RedoTarget(d.Name()) != "" {
		switch out, err := m.fs.Recover(rel); {
		case err != nil:
			m.log.Warn("vault: cannot repair a note a crash cut short", "redo", rel, "err", err)
		case out == confine.RecoverRepaired:
			m.log.Warn("vault: repaired a note that a crash had left half-written", "path", dirOf(rel)+"/"+confine.RedoTarget(d.Name()))
		}
		return
	}
	info, err := d.Info()
	if err != nil || time.Since(info.ModTime()) < staleTempAge {
		return
	}
	if err := m.fs.Remove(rel); err == nil {
		m.log.Info("vault: removed a temporary file left by an interrupted write", "path", rel)
	}
}
