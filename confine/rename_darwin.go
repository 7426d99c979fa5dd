package confine

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames in one step, failing with EEXIST when the target
// exists; file systems without renameatx_np flags get link + unlink.
func renameNoReplace(fromfd int, from string, tofd int, to string) error {
	err := unix.RenameatxNp(fromfd, from, tofd, to, unix.RENAME_EXCL)
	if !unsupported(err) {
		return err
	}
	if err := unix.Linkat(fromfd, from, tofd, to, 0); err != nil {
		return err
	}
	return unix.Unlinkat(fromfd, from, 0)
}

// exchange swaps two names of one folder atomically (RENAME_SWAP); ok is
// false when the file system cannot.
func exchange(dfd int, a, b string) (ok bool, err error) {
	err = unix.RenameatxNp(dfd, a, dfd, b, unix.RENAME_SWAP)
	if unsupported(err) {
		return false, nil
	}
	return true, err
}

func unsupported(err error) bool {
	return errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP)
}

// SyncAll flushes every write made with WriteOptions.NoSync (sync(2): macOS
// has no per-file-system flush).
func (r *Root) SyncAll() error { unix.Sync(); return nil }

// swapInPlace needs file leases, which macOS lacks: Swap exchanges.
func swapInPlace(int, string, []byte, func([]byte) bool, WriteOptions) (bool, error) {
	return false, nil
}

func lockForRecovery(int) (func(), bool) { return func() {}, true }

// waitClosed needs file leases too: without them Swap's check after the
// exchange is the last word (see inplace_linux.go).
func waitClosed(int, string) {}
