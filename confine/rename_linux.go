package confine

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames in one step, failing with EEXIST when the target
// exists (a link + unlink would leave both names after a crash); file
// systems without renameat2 flags get link + unlink.
func renameNoReplace(fromfd int, from string, tofd int, to string) error {
	err := unix.Renameat2(fromfd, from, tofd, to, unix.RENAME_NOREPLACE)
	if !unsupported(err) {
		return err
	}
	if err := unix.Linkat(fromfd, from, tofd, to, 0); err != nil {
		return err
	}
	return unix.Unlinkat(fromfd, from, 0)
}

// exchange swaps two names of one folder atomically; ok is false when the
// file system cannot.
func exchange(dfd int, a, b string) (ok bool, err error) {
	err = unix.Renameat2(dfd, a, dfd, b, unix.RENAME_EXCHANGE)
	if unsupported(err) {
		return false, nil
	}
	return true, err
}

func unsupported(err error) bool {
	return errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP)
}

// SyncAll flushes every write made with WriteOptions.NoSync on the file
// system holding the root (syncfs).
func (r *Root) SyncAll() error { return unix.Syncfs(r.fd) }
