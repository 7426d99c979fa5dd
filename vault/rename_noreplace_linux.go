//go:build linux

package vault

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames src to dst in one step, failing with
// unix.EEXIST when dst exists (renameat2 RENAME_NOREPLACE): a crash leaves
// the file under one name or the other, never both. ok is false when the
// file system or kernel cannot do it, and the caller falls back.
func renameNoReplace(src, dst string) (ok bool, err error) {
	err = unix.Renameat2(unix.AT_FDCWD, src, unix.AT_FDCWD, dst, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return false, nil
	}
	return true, err
}
