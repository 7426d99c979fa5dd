package confine

import (
	"bytes"
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// swapInPlace is Swap where the kernel grants file leases (Linux, a file
// this process's user owns, a local file system). It writes the new
// content into the note's own file under a write lease, which the kernel
// grants only while no one else has the file open and which holds off
// every other open (an editor's save, a reader) until it is released: the
// check and the write are then one step for everyone else, an editor's
// in-place save that was about to open the file lands after it (and keeps
// what this call wrote), and no reader ever sees half of it.
//
// A crash in the middle of the write is covered by a redo file written
// first beside the note (see Recover). done is false when leases are not
// available; the caller then swaps the file by exchange.
func swapInPlace(dfd int, name string, data []byte, still func([]byte) bool, opts WriteOptions) (done bool, err error) {
	fd, err := unix.Openat(dfd, name, unix.O_RDWR|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return false, nil // the exchange path reports what is wrong
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 {
		// A file with other hard links (possibly outside the root) is
		// replaced, never written through: the exchange path does that.
		return false, nil
	}
	release, ok := lease(fd)
	if !ok {
		return false, nil
	}
	defer release()
	cur, err := preadAll(fd)
	if err != nil {
		return true, err
	}
	if !isInode(dfd, name, &st) {
		return true, ErrChanged
	}
	if !still(cur) {
		// Under the lease the file holds still: the change can be made
		// on what is there now (an editor's line appended meanwhile)
		// rather than failing and racing the editor again.
		if opts.Redo == nil {
			return true, ErrChanged
		}
		if data, err = opts.Redo(cur); err != nil {
			return true, err
		}
		if bytes.Equal(data, cur) {
			return true, nil
		}
	}
	// The redo file goes first, flushed before the note is touched, so
	// that a crash in the middle of the write can be repaired (Recover).
	redo, err := writeRedo(dfd, name, cur, data, !opts.NoSync)
	if err != nil {
		return true, err
	}
	removeRedo := func() { _ = unix.Unlinkat(dfd, redo, 0) }
	if _, err := unix.Pwrite(fd, data, 0); err != nil {
		removeRedo()
		return true, err
	}
	if err := unix.Ftruncate(fd, int64(len(data))); err != nil {
		removeRedo()
		return true, err
	}
	if !opts.NoSync {
		if err := unix.Fdatasync(fd); err != nil {
			return true, err // the redo file stays: the next Recover repairs it
		}
	}
	removeRedo()
	return true, nil
}

// lease takes a write lease on fd, waiting a little while another process
// has the file open (an editor saving it); ok is false when the kernel
// cannot grant leases here or the file stays open elsewhere.
func lease(fd int) (release func(), ok bool) {
	return leaseWithin(fd, leaseMaxWait, 2*time.Millisecond)
}

// leaseWithin takes a write lease on fd, trying again while another
// process has the file open, after waits that double from 20 µs up to
// step, for up to limit in all; ok is false when it was not granted in
// that time or leases are not available here.
func leaseWithin(fd int, limit, step time.Duration) (release func(), ok bool) {
	wait := 20 * time.Microsecond
	for waited := time.Duration(0); ; waited += wait {
		_, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_WRLCK)
		if err == nil {
			return func() { _, _ = unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_UNLCK) }, true
		}
		if !errors.Is(err, unix.EAGAIN) || waited > limit {
			return nil, false
		}
		time.Sleep(wait)
		wait = min(2*wait, step)
	}
}

// leaseMaxWait bounds the wait for another process to close a note. An
// editor's save takes microseconds, but on a loaded machine the editor may
// wait tens of milliseconds for a CPU between its open and its close
// (TestEditNoteLosesNoOutsideEdit at load 20: 50 ms sent a write in five
// to the exchange path). A viewer that keeps a note open stalls a write by
// this much, then the exchange path does it.
const leaseMaxWait = time.Second

// isInode reports whether name in dfd is still the file st describes (no
// rename replaced it since it was opened).
func isInode(dfd int, name string, st *unix.Stat_t) bool {
	var now unix.Stat_t
	return unix.Fstatat(dfd, name, &now, unix.AT_SYMLINK_NOFOLLOW) == nil && now.Dev == st.Dev && now.Ino == st.Ino
}

// lockForRecovery takes the lease Recover needs: while it is held no write
// of another process is under way on the note. ok is false when the note
// is open elsewhere; without leases here it reports true (callers then
// rely on the redo file's age).
func lockForRecovery(fd int) (release func(), ok bool) {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_WRLCK)
	switch {
	case err == nil:
		return func() { _, _ = unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_UNLCK) }, true
	case errors.Is(err, unix.EAGAIN):
		return nil, false
	default:
		return func() {}, true
	}
}

// waitClosed waits, up to closeMaxWait, until no process has the file
// name of dfd open. Swap calls it on the file an exchange replaced: a
// writer that opened the note before the exchange (an editor descheduled
// between its open and its write on a loaded machine) still writes to
// that file, and its write would land after Swap's check and be lost with
// it. A write lease is granted only when no one else has the file open,
// so once it is, no such write can come; the check that follows then sees
// every write there was. Without leases here it returns at once.
func waitClosed(dfd int, name string) {
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	if release, ok := leaseWithin(fd, closeMaxWait, 5*time.Millisecond); ok {
		release()
	}
}

// closeMaxWait bounds waitClosed: a process that keeps the note open
// longer is most likely a viewer, which writes nothing.
const closeMaxWait = 2 * time.Second
