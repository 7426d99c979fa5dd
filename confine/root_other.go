//go:build !(linux || darwin)

package confine

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
)

// SyncFile flushes a file to stable storage. Tests (of this package and of
// its users) replace it to make a write fail half-way.
var SyncFile = func(f *os.File) error { return f.Sync() }

// Root is a handle on a folder; every operation stays beneath it. Here it
// is Go's os.Root: it never leaves the folder, but follows symbolic links
// that stay inside it, and Swap's last check is not atomic with the
// replacement. It is safe for concurrent use.
type Root struct {
	path string
	r    *os.Root
}

// OpenRoot opens the folder at path.
func OpenRoot(p string) (*Root, error) {
	r, err := os.OpenRoot(p)
	if err != nil {
		return nil, err
	}
	return &Root{path: p, r: r}, nil
}

// Close releases the handle.
func (r *Root) Close() error { return r.r.Close() }

// Path returns the folder the Root was opened on.
func (r *Root) Path() string { return r.path }

// checkPath refuses a path with a symbolic link or a file along it.
func (r *Root) checkPath(op, rel string, last bool) error {
	if err := checkRel(rel); err != nil {
		return err
	}
	segs := segments(rel)
	done := ""
	for i, seg := range segs {
		done = join(done, seg)
		fi, err := r.r.Lstat(done)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return &fs.PathError{Op: op, Path: rel, Err: err}
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return &fs.PathError{Op: op, Path: rel, Err: &BadNameError{Path: done, Err: ErrSymlink}}
		}
		if (i < len(segs)-1 || !last) && !fi.IsDir() {
			return &fs.PathError{Op: op, Path: rel, Err: &BadNameError{Path: done, Err: ErrNotDir}}
		}
	}
	return nil
}

// ReadFile returns the content and Info of the regular file at rel.
func (r *Root) ReadFile(rel string, max int64) ([]byte, Info, error) {
	if _, _, err := split(rel); err != nil {
		return nil, Info{}, err
	}
	if err := r.checkPath("read", rel, true); err != nil {
		return nil, Info{}, err
	}
	f, err := r.r.Open(rel)
	if err != nil {
		return nil, Info{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, Info{}, err
	}
	info := Info{Size: fi.Size(), ModTime: fi.ModTime(), Mode: fi.Mode()}
	if !fi.Mode().IsRegular() {
		return nil, info, &fs.PathError{Op: "read", Path: rel, Err: ErrNotRegular}
	}
	if max > 0 && fi.Size() > max {
		return nil, info, &fs.PathError{Op: "read", Path: rel, Err: ErrTooLarge}
	}
	data, err := io.ReadAll(f)
	info.Size = int64(len(data))
	return data, info, err
}

// Stat returns the Info of the file at rel without following a final link.
func (r *Root) Stat(rel string) (Info, error) {
	if err := r.checkPath("stat", rel, true); err != nil {
		return Info{}, err
	}
	name := rel
	if name == "" {
		name = "."
	}
	fi, err := r.r.Lstat(name)
	if err != nil {
		return Info{}, err
	}
	return Info{Size: fi.Size(), ModTime: fi.ModTime(), Mode: fi.Mode()}, nil
}

// MkdirAll makes the folder rel and any missing parents.
func (r *Root) MkdirAll(rel string) error {
	if err := r.checkPath("mkdir", rel, false); err != nil {
		return err
	}
	if rel == "" {
		return nil
	}
	return r.r.MkdirAll(rel, 0o755)
}

// ReadDir lists the folder rel.
func (r *Root) ReadDir(rel string) ([]fs.DirEntry, error) {
	if err := r.checkPath("readdir", rel, false); err != nil {
		return nil, err
	}
	name := rel
	if name == "" {
		name = "."
	}
	f, err := r.r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// Remove deletes the file at rel.
func (r *Root) Remove(rel string) error {
	if err := r.checkPath("remove", rel, true); err != nil {
		return err
	}
	return r.r.Remove(rel)
}

// RemoveDir deletes the empty folder at rel; a symbolic link or a file
// there is not removed.
func (r *Root) RemoveDir(rel string) error {
	if err := r.checkPath("remove", rel, false); err != nil {
		return err
	}
	if rel == "" {
		return &fs.PathError{Op: "remove", Path: rel, Err: ErrInvalidPath}
	}
	return r.r.Remove(rel)
}

func (r *Root) writeTemp(dir string, data []byte, perm fs.FileMode) (string, error) {
	for {
		var rnd [8]byte
		_, _ = rand.Read(rnd[:])
		name := join(dir, TempPrefix+hex.EncodeToString(rnd[:])+TempSuffix)
		f, err := r.r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if err == nil {
			err = SyncFile(f)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = r.r.Remove(name)
			return "", err
		}
		return name, nil
	}
}

// Create writes a new file at rel; an existing file gives fs.ErrExist.
func (r *Root) Create(rel string, data []byte, opts WriteOptions) error {
	dir, _, err := split(rel)
	if err != nil {
		return err
	}
	if err := r.MkdirAll(dir); err != nil {
		return err
	}
	if err := r.checkPath("create", rel, true); err != nil {
		return err
	}
	tmp, err := r.writeTemp(dir, data, opts.perm())
	if err != nil {
		return err
	}
	defer r.r.Remove(tmp)
	if err := r.r.Link(tmp, rel); err != nil {
		if _, serr := r.r.Lstat(rel); serr == nil {
			return &fs.PathError{Op: "create", Path: rel, Err: fs.ErrExist}
		}
		return err
	}
	return nil
}

// Replace writes data at rel whatever is there.
func (r *Root) Replace(rel string, data []byte, opts WriteOptions) error {
	dir, _, err := split(rel)
	if err != nil {
		return err
	}
	if err := r.MkdirAll(dir); err != nil {
		return err
	}
	if err := r.checkPath("write", rel, true); err != nil {
		return err
	}
	perm := opts.perm()
	if fi, err := r.r.Lstat(rel); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm()
	}
	tmp, err := r.writeTemp(dir, data, perm)
	if err != nil {
		return err
	}
	if err := r.r.Rename(tmp, rel); err != nil {
		_ = r.r.Remove(tmp)
		return err
	}
	return nil
}

// Swap replaces the file at rel only if its content still satisfies
// still; otherwise the error matches ErrChanged.
func (r *Root) Swap(rel string, data []byte, still func([]byte) bool, opts WriteOptions) error {
	cur, info, err := r.ReadFile(rel, 0)
	if err != nil {
		return err
	}
	if !still(cur) {
		return &fs.PathError{Op: "write", Path: rel, Err: ErrChanged}
	}
	tmp, err := r.writeTemp(path.Dir(rel), data, info.Mode.Perm())
	if err != nil {
		return err
	}
	if cur, _, err := r.ReadFile(rel, 0); err != nil || !still(cur) {
		_ = r.r.Remove(tmp)
		if err == nil {
			err = &fs.PathError{Op: "write", Path: rel, Err: ErrChanged}
		}
		return err
	}
	if err := r.r.Rename(tmp, rel); err != nil {
		_ = r.r.Remove(tmp)
		return err
	}
	return nil
}

// Rename moves the file at from to to; with noReplace an existing to gives
// fs.ErrExist.
func (r *Root) Rename(from, to string, noReplace bool) error {
	if err := r.checkPath("rename", from, true); err != nil {
		return err
	}
	tdir, _, err := split(to)
	if err != nil {
		return err
	}
	if err := r.MkdirAll(tdir); err != nil {
		return err
	}
	if noReplace {
		if _, err := r.r.Lstat(to); err == nil {
			return &fs.PathError{Op: "rename", Path: to, Err: fs.ErrExist}
		}
	}
	return r.r.Rename(from, to)
}

// SyncDir is a no-op here: writes are flushed one by one.
func (r *Root) SyncDir(string) error { return nil }

// SyncAll is a no-op here: writes are flushed one by one.
func (r *Root) SyncAll() error { return nil }

func (o WriteOptions) perm() fs.FileMode {
	if o.Perm == 0 {
		return 0o644
	}
	return o.Perm.Perm()
}

// Recover removes a redo file; no write here is made in place, so none
// can be left half done.
func (r *Root) Recover(rel string) (RecoverOutcome, error) {
	if err := r.r.Remove(rel); err != nil {
		return RecoverBusy, err
	}
	return RecoverDone, nil
}

// Lock creates the file rel; it takes no lock here (no flock on this
// system): one process per vault writes at a time only by convention.
func (r *Root) Lock(rel string) (release func(), err error) {
	dir, _, err := split(rel)
	if err != nil {
		return nil, err
	}
	if err := r.MkdirAll(dir); err != nil {
		return nil, err
	}
	f, err := r.r.OpenFile(rel, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return func() { _ = f.Close() }, nil
}

// Inode is 0 where files have no inode numbers vaultgraph reads.
func Inode(fs.FileInfo) uint64 { return 0 }
