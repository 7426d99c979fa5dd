package kv

import (
	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// releasePages tells the kernel this process no longer needs the file's
// pages it has touched through bbolt's read-only mapping. They stay in
// the page cache (a later read maps them again with a minor fault, no
// disk read), but they leave the process's resident set, which otherwise
// grows towards the file's size (gigabytes at 100k notes) as calls read
// bodies and starts read every record.
//
// It must run inside a read transaction (btx): that holds bbolt's mmap
// lock, so the mapping cannot move or shrink under the call (a remap
// happens only in a write transaction's commit, with that lock held for
// writing). Other transactions reading the mapping at the same moment
// just fault the pages in again. MADV_DONTNEED on a shared read-only file mapping discards no
// data: bbolt writes the file with pwrite, never through the mapping.
func releasePages(btx *bolt.Tx) {
	data := btx.DB().Info().Data
	size := btx.Size()
	if data == 0 || size <= 0 {
		return
	}
	// A failure (an old kernel, a mapping the kernel will not advise)
	// only leaves the pages resident, as they were.
	_, _, _ = unix.Syscall(unix.SYS_MADVISE, data, uintptr(size), unix.MADV_DONTNEED)
}
