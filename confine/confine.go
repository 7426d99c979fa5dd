package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"
)

// Errors of this package; each is wrapped in an *fs.PathError naming the
// path (and, for ErrSymlink and ErrNotDir, the name along it at fault).
var (
	// ErrInvalidPath: the path is not a clean relative path.
	ErrInvalidPath = errors.New("not a clean relative path")
	// ErrSymlink: a name along the path is a symbolic link.
	ErrSymlink = errors.New("is a symbolic link")
	// ErrNotDir: a name along the path that must be a folder is a file.
	ErrNotDir = errors.New("is a file, not a folder")
	// ErrNotRegular: the file read is not a regular file (a folder, a
	// device, a pipe...).
	ErrNotRegular = errors.New("is not a regular file")
	// ErrTooLarge: the file is larger than the caller's limit.
	ErrTooLarge = errors.New("is larger than allowed")
	// ErrChanged: Swap found the file's content no longer what the caller
	// expected; nothing was written.
	ErrChanged = errors.New("changed on disk since it was read")
)

// BadNameError is ErrSymlink or ErrNotDir with the path up to the name at
// fault, so a caller can say which file is in the way.
type BadNameError struct {
	Path string // the path up to and including the name at fault
	Err  error  // ErrSymlink or ErrNotDir
}

func (e *BadNameError) Error() string { return fmt.Sprintf("%s %v", e.Path, e.Err) }
func (e *BadNameError) Unwrap() error { return e.Err }

// ConflictError is Swap's report that two outside writes raced it: the
// newer is in place and the older was kept beside it at Kept (a hidden
// file, relative to the root), so that nothing is lost. It matches
// ErrChanged.
type ConflictError struct{ Kept string }

func (e *ConflictError) Error() string {
	return "changed on disk twice while being written; the older version is kept at " + e.Kept
}

// Is makes a ConflictError match ErrChanged.
func (e *ConflictError) Is(target error) bool { return target == ErrChanged }

// TempPrefix and TempSuffix frame the names of the temporary files of
// atomic writes: hidden, so that watchers and scans skip them, and
// recognisable, so that a scan can remove those a killed process left.
const (
	TempPrefix = ".vaultgraph-"
	TempSuffix = ".tmp"
)

// IsTempName reports whether name is one of this package's temporaries.
func IsTempName(name string) bool {
	return strings.HasPrefix(name, TempPrefix) && strings.HasSuffix(name, TempSuffix)
}

// Info is what a read or a stat returns of a file.
type Info struct {
	Size    int64
	ModTime time.Time
	Mode    fs.FileMode // type bits (fs.ModeDir, fs.ModeSymlink...) and permissions
	Ino     uint64      // inode number where the system has one, else 0
}

// IsDir reports whether the file is a folder.
func (i Info) IsDir() bool { return i.Mode.IsDir() }

// IsRegular reports whether the file is a regular file.
func (i Info) IsRegular() bool { return i.Mode.IsRegular() }

// WriteOptions tune a write.
type WriteOptions struct {
	// Perm is the permission of a new file; 0 means 0644. A replaced file
	// keeps its own.
	Perm fs.FileMode
	// NoSync skips flushing the file and its folder; the caller flushes
	// many writes at once with Root.SyncAll (a rename that rewrites
	// hundreds of notes).
	NoSync bool
	// Redo, for Swap, computes the new content from the file's current
	// content when still refuses it, where Swap holds the file still
	// while it writes (Linux's in-place write under a lease): the change
	// is then made on what is there instead of failing, and no one can
	// write in between. Elsewhere Swap fails with ErrChanged as without
	// it. Content equal to the current one writes nothing.
	Redo func(current []byte) ([]byte, error)
}

// split checks rel and returns its folder and last name ("a/b/c.md" →
// "a/b", "c.md"; "c.md" → "", "c.md").
func split(rel string) (dir, name string, err error) {
	if err := checkRel(rel); err != nil {
		return "", "", err
	}
	if rel == "" {
		return "", "", &fs.PathError{Op: "confine", Path: rel, Err: ErrInvalidPath}
	}
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return "", rel, nil
	}
	return rel[:i], rel[i+1:], nil
}

// checkRel refuses a path that is not clean and relative.
func checkRel(rel string) error {
	if rel == "" {
		return nil
	}
	bad := strings.HasPrefix(rel, "/") || strings.ContainsRune(rel, 0)
	for seg := range strings.SplitSeq(rel, "/") {
		if seg == "" || seg == "." || seg == ".." {
			bad = true
		}
	}
	if bad {
		return &fs.PathError{Op: "confine", Path: rel, Err: ErrInvalidPath}
	}
	return nil
}

// segments splits a checked path; the root has none.
func segments(rel string) []string {
	if rel == "" {
		return nil
	}
	return strings.Split(rel, "/")
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// RecoverOutcome says what Recover did with a redo file.
type RecoverOutcome int

// What Recover can do.
const (
	RecoverBusy       RecoverOutcome = iota // a write is under way: left alone
	RecoverDone                             // the write had completed, or never started: redo file removed
	RecoverRepaired                         // the note was cut short by a crash: its new content restored
	RecoverSuperseded                       // the note was changed after the write: redo file removed
)
