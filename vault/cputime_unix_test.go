//go:build unix

package vault

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) this process has used:
// benchmarks report it beside wall time, which other processes on a shared
// machine inflate.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
