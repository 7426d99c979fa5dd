package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/vaultgraph/vaultgraph/core"
)

// syncFile flushes a file to stable storage; tests replace it to make a
// write fail half-way.
var syncFile = func(f *os.File) error { return f.Sync() }

// tempPattern names the temporary files of atomic writes: hidden, so the
// watcher and the sync skip them.
const tempPattern = ".vaultgraph-*.tmp"

// writeAtomic replaces (or, with noClobber, creates) the file at abs with
// data so that readers see the old content or the new, never a mix, and a
// crash leaves no half-written note: the data goes to a temporary file in
// the same folder, which is flushed, renamed over abs (or hard-linked to
// it when noClobber, which fails if abs exists), and the folder flushed.
// An existing file keeps its permissions; a new one gets 0644. With
// noClobber an existing abs gives an error wrapping core.ErrExists. On any
// failure the temporary file is removed and abs is untouched.
func writeAtomic(abs string, data []byte, noClobber bool) (err error) {
	dir := filepath.Dir(abs)
	perm := fs.FileMode(0o644)
	if fi, statErr := os.Stat(abs); statErr == nil {
		if noClobber {
			return fmt.Errorf("vault: create %s: %w", filepath.Base(abs), core.ErrExists)
		}
		perm = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, tempPattern)
	if err != nil {
		return core.NewProviderError("vault: write "+filepath.Base(abs), err)
	}
	committed := false
	defer func() {
		if !committed {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return core.NewProviderError("vault: write "+filepath.Base(abs), err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return core.NewProviderError("vault: write "+filepath.Base(abs), err)
	}
	if err := syncFile(tmp); err != nil {
		return core.NewProviderError("vault: write "+filepath.Base(abs), err)
	}
	if err := tmp.Close(); err != nil {
		return core.NewProviderError("vault: write "+filepath.Base(abs), err)
	}
	if noClobber {
		err = linkNoClobber(tmp.Name(), abs)
		_ = os.Remove(tmp.Name())
	} else {
		err = os.Rename(tmp.Name(), abs)
	}
	if err != nil {
		if errors.Is(err, core.ErrExists) {
			return fmt.Errorf("vault: create %s: %w", filepath.Base(abs), err)
		}
		return core.NewProviderError("vault: write "+filepath.Base(abs), err)
	}
	committed = true
	syncDir(dir)
	return nil
}

// linkNoClobber makes dst name the file src names, failing with
// core.ErrExists when dst exists. A hard link is atomic and never
// replaces; where links are not supported it falls back to a check and a
// rename, which has a small race window.
func linkNoClobber(src, dst string) error {
	err := os.Link(src, dst)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrExist):
		return core.ErrExists
	}
	if _, statErr := os.Lstat(dst); statErr == nil {
		return core.ErrExists
	}
	return os.Rename(src, dst)
}

// moveNoClobber renames src to dst, failing with core.ErrExists when dst
// exists: renameat2 RENAME_NOREPLACE on Linux, else a hard link then
// removing src, else a checked rename where links are not supported.
func moveNoClobber(src, dst string) error {
	// One atomic step where the system has it: with a link and an unlink,
	// a crash between the two leaves the note under both names (found by
	// the crash-safety test, integration/e2e/crash_test.go).
	if ok, err := renameNoReplace(src, dst); ok {
		if errors.Is(err, fs.ErrExist) {
			return core.ErrExists
		}
		return err
	}
	if err := os.Link(src, dst); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return core.ErrExists
		}
		if _, statErr := os.Lstat(dst); statErr == nil {
			return core.ErrExists
		}
		return os.Rename(src, dst)
	}
	return os.Remove(src)
}

// syncDir flushes a folder so a rename in it survives a crash. Some file
// systems cannot sync folders; that is not an error worth failing for.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
