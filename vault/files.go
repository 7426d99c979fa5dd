package vault

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"

	"github.com/vaultgraph/vaultgraph/confine"
	"github.com/vaultgraph/vaultgraph/core"
)

// Every file operation of the Mirror and its Writer goes through m.fs, a
// confine.Root on the vault folder: no path, symbolic link or folder
// swapped mid-operation can make a read or a write act outside the vault
// (see package confine).

// readFile returns the bytes and status of the note file at rel, read
// through one handle. A missing file, a folder, a symbolic link or any
// other non-regular file matches fs.ErrNotExist (the vault does not follow
// links, so such a path holds no note); a file over MaxFileSize matches
// errTooLarge.
func (m *Mirror) readFile(rel string) ([]byte, fileStat, error) {
	raw, info, err := m.fs.ReadFile(rel, m.cfg.MaxFileSize)
	switch {
	case err == nil:
		return raw, fileStat{path: rel, size: info.Size, mtime: info.ModTime, ino: info.Ino}, nil
	case errors.Is(err, confine.ErrTooLarge):
		return nil, fileStat{}, fmt.Errorf("%s: %d bytes: %w", rel, info.Size, errTooLarge)
	case errors.Is(err, confine.ErrSymlink), errors.Is(err, confine.ErrNotRegular), errors.Is(err, confine.ErrNotDir):
		return nil, fileStat{}, fmt.Errorf("%s: %w: %w", rel, fs.ErrNotExist, err)
	}
	return nil, fileStat{}, err
}

// fileError turns an error of a file operation on rel into the core error
// a caller can act on: a symbolic link or a file in the way, an existing
// file, a missing one, a conflict; anything else is the file system's
// failure (a provider error).
func fileError(op, rel string, err error) error {
	var bad *confine.BadNameError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &bad) && errors.Is(err, confine.ErrSymlink):
		return fmt.Errorf("vault: %s %s: %w", op, rel, &core.InvalidPathError{Name: bad.Path, Why: "it is a symbolic link, which vaultgraph does not follow"})
	case errors.As(err, &bad):
		return fmt.Errorf("vault: %s %s: %w", op, rel, &core.InvalidPathError{Name: bad.Path, Why: "it is a file, not a folder"})
	case errors.Is(err, confine.ErrInvalidPath):
		return fmt.Errorf("vault: %s %s: %w", op, rel, core.ErrInvalidPath)
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("vault: %s %s: %w", op, rel, core.ErrExists)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, confine.ErrNotRegular):
		return fmt.Errorf("vault: %s %s: %w", op, rel, core.ErrNotFound)
	case errors.Is(err, confine.ErrChanged):
		return fmt.Errorf("vault: %s %s: %w", op, rel, core.ErrConflict)
	case errors.Is(err, errTooLarge), errors.Is(err, confine.ErrTooLarge):
		return fmt.Errorf("vault: %s %s: %w: the file is larger than %d bytes", op, rel, core.ErrInvalidArgument, DefaultMaxFileSize)
	}
	return core.NewProviderError("vault: "+op+" "+rel, err)
}

// createFile writes a new note file; an existing one (core.ErrExists) is
// never replaced.
func (m *Mirror) createFile(rel string, data []byte) error {
	return fileError("create", rel, m.fs.Create(rel, data, confine.WriteOptions{}))
}

// maxModifyTries bounds how often a read-modify-write re-reads a note that
// keeps changing under it before it gives up with core.ErrConflict.
const maxModifyTries = 20

// errUnchanged is returned by an edit that has nothing to change.
var errUnchanged = errors.New("vault: nothing to change")

// modifyFile applies edit to the current bytes of the note at rel and
// writes the result only if the file is still what edit saw (confine.Swap):
// when an editor or another process changed it meanwhile, the file is read
// again and edit applied again, so no outside edit is lost. edit returns
// errUnchanged when there is nothing to write. It returns the bytes the
// edit started from and the bytes written (equal when nothing was).
func (m *Mirror) modifyFile(rel string, opts confine.WriteOptions, edit func(raw []byte) ([]byte, error)) (before, after []byte, err error) {
	for try := 1; ; try++ {
		raw, _, err := m.readFile(rel)
		if err != nil {
			return nil, nil, fileError("read", rel, err)
		}
		out, err := edit(raw)
		if errors.Is(err, errUnchanged) || err == nil && bytes.Equal(out, raw) {
			return raw, raw, nil
		}
		if err != nil {
			return nil, nil, err
		}
		// Where the file is written in place under a lease, a change made
		// meanwhile (an editor appending) gets the edit applied on top of
		// it, under the lease, instead of a retry that races the editor
		// again.
		before, after := raw, out
		var editErr error // the edit's own refusal, returned as it is
		opts.Redo = func(cur []byte) ([]byte, error) {
			o, err := edit(cur)
			if errors.Is(err, errUnchanged) {
				o, err = cur, nil
			}
			if err != nil {
				editErr = err
				return nil, err
			}
			before, after = cur, o
			return o, nil
		}
		err = m.fs.Swap(rel, out, func(cur []byte) bool { return bytes.Equal(cur, raw) }, opts)
		if editErr != nil {
			return nil, nil, editErr
		}
		var kept *confine.ConflictError
		if errors.As(err, &kept) {
			m.log.Warn("vault: two outside edits raced a write; the older is kept beside the note", "path", rel, "kept", kept.Kept)
		}
		if errors.Is(err, confine.ErrChanged) {
			if try < maxModifyTries {
				continue
			}
			return nil, nil, fmt.Errorf("vault: write %s: %w: the note keeps changing on disk; try again when it is quiet", rel, core.ErrConflict)
		}
		if err != nil {
			return nil, nil, fileError("write", rel, err)
		}
		return before, after, nil
	}
}

// removeFile deletes a note file.
func (m *Mirror) removeFile(rel string) error {
	return fileError("delete", rel, m.fs.Remove(rel))
}

// moveFile renames the note file from to to (folders created as needed),
// never replacing a file at to.
func (m *Mirror) moveFile(from, to string, caseOnly bool) error {
	// A case-only rename is one file on case-insensitive file systems: it
	// must replace "itself".
	return fileError("rename", from, m.fs.Rename(from, to, !caseOnly))
}

func isNotFound(err error) bool {
	return errors.Is(err, core.ErrNotFound) || errors.Is(err, fs.ErrNotExist)
}
