//go:build linux || darwin

package confine

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Root is a handle on a folder; every operation stays beneath it. It is
// safe for concurrent use.
type Root struct {
	path string
	fd   int
}

// OpenRoot opens the folder at path (which may itself be reached through
// symbolic links: the root is where the caller chose to be confined).
func OpenRoot(path string) (*Root, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return &Root{path: path, fd: fd}, nil
}

// Close releases the handle.
func (r *Root) Close() error { return unix.Close(r.fd) }

// Path returns the folder the Root was opened on.
func (r *Root) Path() string { return r.path }

// openDir returns a handle on the folder rel, reached one name at a time
// without following any symbolic link; with create, missing folders are
// made. The caller closes the handle.
func (r *Root) openDir(op, rel string, create bool) (int, error) {
	if err := checkRel(rel); err != nil {
		return -1, err
	}
	fd, err := unix.Openat(r.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: op, Path: rel, Err: err}
	}
	done := ""
	for _, seg := range segments(rel) {
		done = join(done, seg)
		nfd, err := openDirAt(fd, seg)
		if create && errors.Is(err, unix.ENOENT) {
			if err := unix.Mkdirat(fd, seg, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
				_ = unix.Close(fd)
				return -1, &fs.PathError{Op: "mkdir", Path: done, Err: err}
			}
			nfd, err = openDirAt(fd, seg)
		}
		if err != nil {
			err = classify(fd, seg, done, err)
			_ = unix.Close(fd)
			return -1, &fs.PathError{Op: op, Path: rel, Err: err}
		}
		_ = unix.Close(fd)
		fd = nfd
	}
	return fd, nil
}

func openDirAt(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return fd, err
	}
}

// classify turns the error of opening name (in folder dirfd) without
// following links into ErrSymlink or ErrNotDir when that is what is in the
// way; other errors pass through (ENOENT as fs.ErrNotExist).
func classify(dirfd int, name, upTo string, err error) error {
	if !errors.Is(err, unix.ELOOP) && !errors.Is(err, unix.ENOTDIR) && !errors.Is(err, unix.EMLINK) {
		return err
	}
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			return &BadNameError{Path: upTo, Err: ErrSymlink}
		case unix.S_IFDIR:
			return err
		default:
			return &BadNameError{Path: upTo, Err: ErrNotDir}
		}
	}
	return err
}

// ReadFile returns the content and the Info of the regular file at rel,
// both from one open handle: what was checked is what is read. max > 0
// refuses a larger file with ErrTooLarge before reading it.
func (r *Root) ReadFile(rel string, max int64) ([]byte, Info, error) {
	dir, name, err := split(rel)
	if err != nil {
		return nil, Info{}, err
	}
	dfd, err := r.openDir("read", dir, false)
	if err != nil {
		return nil, Info{}, err
	}
	defer unix.Close(dfd)
	data, info, err := readAt(dfd, name, max)
	if err != nil {
		return nil, info, &fs.PathError{Op: "read", Path: rel, Err: classify(dfd, name, rel, err)}
	}
	return data, info, nil
}

func readAt(dfd int, name string, max int64) ([]byte, Info, error) {
	// O_NONBLOCK: opening a named pipe must not hang; it is refused below.
	// The descriptor is used as it is, not through an os.File, which
	// would ask for its flags and try to register it with the poller: two
	// system calls and two allocations more for each note a sync reads.
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, Info{}, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, Info{}, err
	}
	info := infoOf(&st)
	if !info.IsRegular() {
		return nil, info, ErrNotRegular
	}
	if max > 0 && info.Size > max {
		return nil, info, ErrTooLarge
	}
	data := make([]byte, 0, info.Size+1)
	for {
		n, err := unix.Read(fd, data[len(data):cap(data)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, info, err
		}
		if n == 0 {
			break // the end of the file
		}
		data = data[:len(data)+n]
		if len(data) == cap(data) {
			if max > 0 && int64(len(data)) > max {
				return nil, info, ErrTooLarge
			}
			data = append(data, 0)[:len(data)] // grew while read
		}
	}
	info.Size = int64(len(data))
	return data, info, nil
}

// Stat returns the Info of the file at rel without following a final
// symbolic link (Mode then has fs.ModeSymlink); the folders before it are
// reached without following links.
func (r *Root) Stat(rel string) (Info, error) {
	if rel == "" {
		var st unix.Stat_t
		if err := unix.Fstat(r.fd, &st); err != nil {
			return Info{}, &fs.PathError{Op: "stat", Path: rel, Err: err}
		}
		return infoOf(&st), nil
	}
	dir, name, err := split(rel)
	if err != nil {
		return Info{}, err
	}
	dfd, err := r.openDir("stat", dir, false)
	if err != nil {
		return Info{}, err
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	if err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return Info{}, &fs.PathError{Op: "stat", Path: rel, Err: err}
	}
	return infoOf(&st), nil
}

func infoOf(st *unix.Stat_t) Info {
	mode := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFREG:
	default:
		mode |= fs.ModeIrregular
	}
	return Info{Size: st.Size, ModTime: time.Unix(st.Mtim.Unix()), Mode: mode, Ino: uint64(st.Ino)}
}

// MkdirAll makes the folder rel and any missing parents.
func (r *Root) MkdirAll(rel string) error {
	fd, err := r.openDir("mkdir", rel, true)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

// ReadDir lists the folder rel.
func (r *Root) ReadDir(rel string) ([]fs.DirEntry, error) {
	fd, err := r.openDir("readdir", rel, false)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), filepath.Join(r.path, filepath.FromSlash(rel)))
	defer f.Close()
	return f.ReadDir(-1)
}

// Remove deletes the file (not folder) at rel.
func (r *Root) Remove(rel string) error {
	dir, name, err := split(rel)
	if err != nil {
		return err
	}
	dfd, err := r.openDir("remove", dir, false)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	if err := unix.Unlinkat(dfd, name, 0); err != nil {
		return &fs.PathError{Op: "remove", Path: rel, Err: err}
	}
	fsyncFD(dfd)
	return nil
}

// RemoveDir deletes the empty folder at rel (ENOTEMPTY when it is not
// empty); a symbolic link or a file there is not removed.
func (r *Root) RemoveDir(rel string) error {
	dir, name, err := split(rel)
	if err != nil {
		return err
	}
	dfd, err := r.openDir("remove", dir, false)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	if err := unix.Unlinkat(dfd, name, unix.AT_REMOVEDIR); err != nil {
		return &fs.PathError{Op: "remove", Path: rel, Err: classify(dfd, name, rel, err)}
	}
	fsyncFD(dfd)
	return nil
}

// Create writes a new file at rel, creating its folder; a file already
// there gives an error matching fs.ErrExist, and nothing is replaced.
func (r *Root) Create(rel string, data []byte, opts WriteOptions) error {
	dir, name, err := split(rel)
	if err != nil {
		return err
	}
	dfd, err := r.openDir("create", dir, true)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	tmp, err := writeTemp(dfd, data, opts.perm(), !opts.NoSync)
	if err != nil {
		return &fs.PathError{Op: "create", Path: rel, Err: err}
	}
	if err := renameNoReplace(dfd, tmp, dfd, name); err != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
		return &fs.PathError{Op: "create", Path: rel, Err: err}
	}
	if !opts.NoSync {
		fsyncFD(dfd)
	}
	return nil
}

// Replace writes data at rel whatever is there (creating the file and its
// folder when missing). A replaced file keeps its permissions.
func (r *Root) Replace(rel string, data []byte, opts WriteOptions) error {
	dir, name, err := split(rel)
	if err != nil {
		return err
	}
	dfd, err := r.openDir("write", dir, true)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	perm := opts.perm()
	var st unix.Stat_t
	if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
		perm = fs.FileMode(st.Mode & 0o777)
	}
	tmp, err := writeTemp(dfd, data, perm, !opts.NoSync)
	if err != nil {
		return &fs.PathError{Op: "write", Path: rel, Err: err}
	}
	if err := unix.Renameat(dfd, tmp, dfd, name); err != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
		return &fs.PathError{Op: "write", Path: rel, Err: err}
	}
	if !opts.NoSync {
		fsyncFD(dfd)
	}
	return nil
}

// Swap replaces the regular file at rel with data only if its content
// still satisfies still (the caller's check that it is what the change was
// based on, e.g. an equal hash). When it does not, nothing is written and
// the error matches ErrChanged; a missing file matches fs.ErrNotExist.
//
// The content is read and checked, the new content written to a temporary
// file, and the file's version (inode, size, modification time) compared
// with the one read, one system call before the replacement. Where the file
// system can exchange two names atomically, the file that was replaced is
// then compared (inode, size, modification time) with the one checked,
// once no process has it open any more (Linux, up to 2 s: a writer that
// opened it before the exchange writes there), and if
// an outside write landed in between, it is put back and ErrChanged
// returned. Nothing outside is ever deleted: a file that is neither the
// version checked nor this call's own is kept beside the note as a
// conflict copy (a *ConflictError, which also matches ErrChanged).
func (r *Root) Swap(rel string, data []byte, still func(current []byte) bool, opts WriteOptions) error {
	dir, name, err := split(rel)
	if err != nil {
		return err
	}
	dfd, err := r.openDir("write", dir, false)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	fail := func(err error) error {
		return &fs.PathError{Op: "write", Path: rel, Err: err}
	}
	if done, err := swapInPlace(dfd, name, data, still, opts); done {
		if err != nil {
			return fail(err)
		}
		return nil
	}
	cur, checked, err := readStatAt(dfd, name)
	if err != nil {
		return fail(classify(dfd, name, rel, err))
	}
	if !still(cur) {
		return fail(ErrChanged)
	}
	tmp, mine, err := writeTempStat(dfd, data, fs.FileMode(checked.Mode&0o777), !opts.NoSync)
	if err != nil {
		return fail(err)
	}
	removeTmp := func() { _ = unix.Unlinkat(dfd, tmp, 0) }
	// The last check before the exchange is one system call away from it.
	if !isVersion(dfd, name, &checked) {
		removeTmp()
		return fail(ErrChanged)
	}
	ok, err := exchange(dfd, tmp, name)
	if err != nil {
		removeTmp()
		return fail(err)
	}
	if !ok { // no atomic exchange on this file system: a plain rename
		if err := unix.Renameat(dfd, tmp, dfd, name); err != nil {
			removeTmp()
			return fail(err)
		}
		if !opts.NoSync {
			fsyncFD(dfd)
		}
		return nil
	}
	// tmp now holds what rel held at the instant of the exchange; a writer
	// that opened it before may still be about to write to it.
	waitClosed(dfd, tmp)
	if isVersion(dfd, tmp, &checked) {
		removeTmp()
		if !opts.NoSync {
			fsyncFD(dfd)
		}
		return nil
	}
	// An outside write landed after the check: put it back.
	if _, err := exchange(dfd, tmp, name); err != nil {
		return fail(err)
	}
	waitClosed(dfd, tmp) // a writer may have opened this call's version meanwhile
	if isVersion(dfd, tmp, &mine) {
		removeTmp()
		return fail(ErrChanged)
	}
	// And another one was made to this call's version while it was in
	// place: the newest stays, the one before is kept as a conflict copy.
	if _, err := exchange(dfd, tmp, name); err != nil {
		return fail(err)
	}
	kept := fmt.Sprintf(".%s.conflict-%s.vaultgraph", name, time.Now().UTC().Format("20060102T150405.000000000"))
	if err := unix.Renameat(dfd, tmp, dfd, kept); err != nil {
		return fail(err)
	}
	fsyncFD(dfd)
	return fail(&ConflictError{Kept: join(dir, kept)})
}

// isVersion reports whether the file name in dfd is the version v.
func isVersion(dfd int, name string, v *unix.Stat_t) bool {
	var st unix.Stat_t
	return unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && sameVersion(v, &st)
}

// readStatAt reads the regular file name of folder dfd and returns its
// status as of the read, from the same handle.
func readStatAt(dfd int, name string) ([]byte, unix.Stat_t, error) {
	var st unix.Stat_t
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, st, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, st, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, st, ErrNotRegular
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, st, err
	}
	// A write during the read shows in the status taken after it.
	var after unix.Stat_t
	if err := unix.Fstat(fd, &after); err != nil {
		return nil, st, err
	}
	return data, after, nil
}

// sameVersion reports whether two statuses are of the same file with no
// write between them. (Not the change time: a rename changes it.)
func sameVersion(a, b *unix.Stat_t) bool {
	return a.Dev == b.Dev && a.Ino == b.Ino && a.Size == b.Size && a.Mtim == b.Mtim
}

// Rename moves the file at from to to (creating to's folder). With
// noReplace an existing file at to gives an error matching fs.ErrExist.
func (r *Root) Rename(from, to string, noReplace bool) error {
	fdir, fname, err := split(from)
	if err != nil {
		return err
	}
	tdir, tname, err := split(to)
	if err != nil {
		return err
	}
	ffd, err := r.openDir("rename", fdir, false)
	if err != nil {
		return err
	}
	defer unix.Close(ffd)
	tfd, err := r.openDir("rename", tdir, true)
	if err != nil {
		return err
	}
	defer unix.Close(tfd)
	if noReplace {
		err = renameNoReplace(ffd, fname, tfd, tname)
	} else {
		err = unix.Renameat(ffd, fname, tfd, tname)
	}
	if err != nil {
		return &fs.PathError{Op: "rename", Path: from, Err: err}
	}
	fsyncFD(ffd)
	if tdir != fdir {
		fsyncFD(tfd)
	}
	return nil
}

// SyncDir flushes the folder rel (its entries: creations, renames).
func (r *Root) SyncDir(rel string) error {
	fd, err := r.openDir("sync", rel, false)
	if err != nil {
		return err
	}
	fsyncFD(fd)
	return unix.Close(fd)
}

// writeTemp writes data to a new temporary file in the folder dfd and
// returns its name.
func writeTemp(dfd int, data []byte, perm fs.FileMode, sync bool) (string, error) {
	name, _, err := writeTempStat(dfd, data, perm, sync)
	return name, err
}

// writeTempStat is writeTemp that also returns the file's status once
// written.
func writeTempStat(dfd int, data []byte, perm fs.FileMode, sync bool) (string, unix.Stat_t, error) {
	var st unix.Stat_t
	var name string
	var fd int
	for {
		var rnd [8]byte
		_, _ = rand.Read(rnd[:])
		name = TempPrefix + hex.EncodeToString(rnd[:]) + TempSuffix
		var err error
		fd, err = unix.Openat(dfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return "", st, err
		}
		break
	}
	f := os.NewFile(uintptr(fd), name)
	err := func() error {
		if _, err := f.Write(data); err != nil {
			return err
		}
		if err := f.Chmod(perm); err != nil {
			return err
		}
		if sync {
			if err := SyncFile(f); err != nil {
				return err
			}
		}
		return unix.Fstat(fd, &st)
	}()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = unix.Unlinkat(dfd, name, 0)
		return "", st, err
	}
	return name, st, nil
}

// SyncFile flushes a file to stable storage. Tests (of this package and of
// its users) replace it to make a write fail half-way.
var SyncFile = func(f *os.File) error { return f.Sync() }

// fsyncFD flushes a folder so a rename in it survives a crash. Some file
// systems cannot sync folders; that is not worth failing for.
func fsyncFD(fd int) { _ = unix.Fsync(fd) }

func (o WriteOptions) perm() fs.FileMode {
	if o.Perm == 0 {
		return 0o644
	}
	return o.Perm.Perm()
}

// Recover finishes what a crash interrupted, given the path of a redo file
// (see RedoSuffix): a note left half-written gets the content the write
// was putting there; a note the write had finished, or had not started,
// or that was edited since, is left as it is. The redo file is then
// removed. It does nothing while a write of the note is under way in
// another process.
func (r *Root) Recover(rel string) (RecoverOutcome, error) {
	dir, redo, err := split(rel)
	if err != nil {
		return RecoverBusy, err
	}
	note := RedoTarget(redo)
	if note == "" {
		return RecoverBusy, &fs.PathError{Op: "recover", Path: rel, Err: ErrInvalidPath}
	}
	dfd, err := r.openDir("recover", dir, false)
	if err != nil {
		return RecoverBusy, err
	}
	defer unix.Close(dfd)
	raw, _, err := readAt(dfd, redo, 0)
	if err != nil {
		return RecoverBusy, &fs.PathError{Op: "recover", Path: rel, Err: err}
	}
	old, data, ok := decodeRedo(raw)
	drop := func(o RecoverOutcome) (RecoverOutcome, error) {
		_ = unix.Unlinkat(dfd, redo, 0)
		fsyncFD(dfd)
		return o, nil
	}
	if !ok { // cut short while it was written itself: the note was not touched yet
		return drop(RecoverDone)
	}
	fd, err := unix.Openat(dfd, note, unix.O_RDWR|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return drop(RecoverSuperseded) // gone or not a file any more: deleted since
	}
	defer unix.Close(fd)
	release, ok := lockForRecovery(fd)
	if !ok {
		return RecoverBusy, nil
	}
	defer release()
	cur, err := preadAll(fd)
	if err != nil {
		return RecoverBusy, &fs.PathError{Op: "recover", Path: join(dir, note), Err: err}
	}
	switch {
	case bytes.Equal(cur, data) || bytes.Equal(cur, old):
		return drop(RecoverDone)
	case !torn(cur, old, data):
		return drop(RecoverSuperseded)
	}
	if _, err := unix.Pwrite(fd, data, 0); err != nil {
		return RecoverBusy, err
	}
	if err := unix.Ftruncate(fd, int64(len(data))); err != nil {
		return RecoverBusy, err
	}
	if err := unix.Fsync(fd); err != nil {
		return RecoverBusy, err
	}
	return drop(RecoverRepaired)
}

func preadAll(fd int) ([]byte, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	buf := make([]byte, st.Size)
	off := 0
	for off < len(buf) {
		n, err := unix.Pread(fd, buf[off:], int64(off))
		if err != nil {
			return nil, err
		}
		if n == 0 {
			break
		}
		off += n
	}
	return buf[:off], nil
}

func writeRedo(dfd int, name string, old, data []byte, sync bool) (string, error) {
	tmp, err := writeTemp(dfd, encodeRedo(old, data), 0o600, sync)
	if err != nil {
		return "", err
	}
	redo := redoName(name, tmp[len(TempPrefix):len(tmp)-len(TempSuffix)])
	if err := unix.Renameat(dfd, tmp, dfd, redo); err != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
		return "", err
	}
	if sync {
		fsyncFD(dfd)
	}
	return redo, nil
}

// Lock takes an exclusive advisory lock (flock) on the file rel, creating
// it (and its folder) when missing, waiting while another process holds
// it; release unlocks and closes it. Every vaultgraph process writing one
// vault takes the same lock, so their writes do not interleave.
func (r *Root) Lock(rel string) (release func(), err error) {
	dir, name, err := split(rel)
	if err != nil {
		return nil, err
	}
	dfd, err := r.openDir("lock", dir, true)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	fd, err := unix.Openat(dfd, name, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, &fs.PathError{Op: "lock", Path: rel, Err: classify(dfd, name, rel, err)}
	}
	for {
		err = unix.Flock(fd, unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		_ = unix.Close(fd)
		return nil, &fs.PathError{Op: "lock", Path: rel, Err: err}
	}
	return func() {
		_ = unix.Flock(fd, unix.LOCK_UN)
		_ = unix.Close(fd)
	}, nil
}

// Inode is the inode number of a file's FileInfo (from os.Stat, os.Lstat or
// fs.DirEntry.Info).
func Inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
