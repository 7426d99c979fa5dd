package lowprio

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// currentPolicyIdle reports whether the calling thread is in SCHED_IDLE.
func currentPolicyIdle() bool {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	attr, err := unix.SchedGetAttr(0, 0)
	return err == nil && attr.Policy == unix.SCHED_IDLE
}
