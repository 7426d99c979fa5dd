// Package lowprio runs background CPU work at the lowest CPU priority the
// operating system offers, so that it uses only CPU time nothing else
// wants: the transformer's embedding pass beside the reads a server
// answers (issue 49.2).
//
// A context marks the work (With); the code that starts the goroutines
// doing it calls Thread at the start of each (Background says whether to).
// Thread locks the goroutine to its OS thread and lowers that thread alone:
// SCHED_IDLE on Linux, else nice 19 where the OS has per-thread nice
// values. The goroutine must end with the work: a goroutine that exits
// locked takes its thread with it, so the lowered thread never runs other
// goroutines.
package lowprio

import (
	"context"
	"runtime"
)

type key struct{}

// With returns ctx marked as background work.
func With(ctx context.Context) context.Context { return context.WithValue(ctx, key{}, true) }

// Background reports whether ctx is marked as background work.
func Background(ctx context.Context) bool {
	b, _ := ctx.Value(key{}).(bool)
	return b
}

// Thread locks the calling goroutine to its OS thread and gives that
// thread the lowest CPU priority; it reports whether the priority was
// lowered (false where the OS does not allow it; the goroutine is locked
// anyway). Call it at the start of a goroutine that exits when its work
// is done, and never unlock: the thread ends with the goroutine.
func Thread() bool {
	runtime.LockOSThread()
	return lower()
}
