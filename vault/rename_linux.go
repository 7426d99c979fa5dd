//go:build linux

package vault

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames src to dst in one step, failing with
// fs.ErrExist when dst exists. One step matters for crash safety: a move
// done as link + remove leaves the note under both names if the process
// dies in between. ok is false when the file system cannot do it (the
// caller then falls back to link + remove).
func renameNoReplace(src, dst string) (ok bool, err error) {
	err = unix.Renameat2(unix.AT_FDCWD, src, unix.AT_FDCWD, dst, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP) {
		return false, nil
	}
	return true, err
}
