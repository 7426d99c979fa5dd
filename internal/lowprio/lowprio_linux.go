package lowprio

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// lower puts the calling thread in SCHED_IDLE: it runs only when a CPU
// has nothing else to run (below nice 19). If that is refused (a seccomp
// filter), the thread gets nice 19.
func lower() bool {
	attr := unix.SchedAttr{Size: uint32(unsafe.Sizeof(unix.SchedAttr{})), Policy: unix.SCHED_IDLE}
	if unix.SchedSetAttr(0, &attr, 0) == nil {
		return true
	}
	// On Linux setpriority of a thread ID changes that thread alone.
	return unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 19) == nil
}
