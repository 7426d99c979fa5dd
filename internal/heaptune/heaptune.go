// Package heaptune sets the garbage collector's targets and soft memory
// limits of a vaultgraph process by what it does: a long-lived process
// (serve, view, sync --watch: LongLived, WarmStart during a warm start,
// then FollowLiveHeap) and a one-shot sync (OneShotSync). Each leaves the
// collector alone when the user set GOGC or GOMEMLIMIT. The figures behind
// each choice are in docs/BENCHMARKS.md and docs/DECISIONS.md.
package heaptune

import (
	"context"
	"log/slog"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// longLivedGCPercent is the garbage collector's target for processes that
// stay up holding a vault (serve, view, sync --watch): the heap may grow
// to 1.5× what is live before a collection, instead of Go's default 2×.
// Such a process is idle most of the time and allocates little once it
// has synced, so the extra collections cost little CPU, while the
// default's headroom was the largest part of its resident memory (10k
// notes: ~50 MB live, ~118 MB anonymous RSS; docs/BENCHMARKS.md).
const longLivedGCPercent = 50

// userTunedGC reports whether the user set the collector's knobs
// themselves, which vaultgraph then leaves alone.
func userTunedGC() bool { return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" }

// LongLived applies longLivedGCPercent unless the user tuned the
// collector themselves (GOGC or GOMEMLIMIT in the environment).
func LongLived(logger *slog.Logger) {
	if userTunedGC() {
		return
	}
	debug.SetGCPercent(longLivedGCPercent)
	logger.Debug("garbage collector target set for a long-lived process", "gogc", longLivedGCPercent)
}

// warmStartGCPercent is the collector's target while a long-lived owner
// restores a store that holds the vault (a warm start), instead of
// longLivedGCPercent: the heap grows from nothing to what the vault needs
// (~310 MB at 100k notes), almost all of it live and little garbage
// (~200 MB allocated in all). At 50 the collector marked that growing
// heap about three times over, ~0.5 CPU-s of a 100k restart's ~3; at 100,
// eleven collections still marked ~680 MB, ~0.4 CPU-s on the restart's
// path. At 400 it collects about four times, early, while the heap is
// small: the restart reached `sync done` 0.3-0.4 s sooner on the 2-core
// Xeon, its peak ~10 MiB higher (docs/BENCHMARKS.md, "Warm restart,
// session 2026-11-27 07:45"). The soft limit that follows the live heap
// takes over once the first sync is done (FollowLiveHeap).
const warmStartGCPercent = 400

// WarmStart sets warmStartGCPercent for a warm start and
// returns what puts the long-lived target back (at the end of the first
// sync); it does nothing when the user tuned the collector.
func WarmStart() (restore func()) {
	if userTunedGC() {
		return func() {}
	}
	prev := debug.SetGCPercent(warmStartGCPercent)
	return func() { debug.SetGCPercent(prev) }
}

// After its first sync, a long-lived owner holds the vault and mostly
// answers calls: its live heap changes slowly (loads of the search
// indexes, edits), while what it allocates for calls is garbage at once.
// A soft memory limit a little above the live heap keeps the heap near
// it, where GOGC 50 alone lets it grow to 1.5× between collections. The
// limit follows the live heap (set again after every collection), so a
// vault that grows raises it, and the collector never chases a fixed
// number below what the process needs.
const (
	// liveHeadroomDiv: the limit is the live heap plus 1/liveHeadroomDiv
	// of it (25%), plus limitSlack.
	liveHeadroomDiv = 4
	// limitSlack covers what the limit counts besides the heap (stacks,
	// the collector's metadata, the runtime's other memory) and keeps a
	// small heap's collections from following each other too closely.
	limitSlack = 24 << 20
)

// FollowLiveHeap keeps a soft memory limit of the live heap plus
// headroom, updated after every garbage collection, until ctx ends (the
// limit is then lifted). It does nothing when the user tuned the
// collector (GOGC or GOMEMLIMIT set).
func FollowLiveHeap(ctx context.Context, logger *slog.Logger) {
	if limitByLiveHeap(ctx, func(live uint64) uint64 { return live + live/liveHeadroomDiv + limitSlack }) {
		logger.Debug("memory limit follows the live heap", "headroom_percent", 100/liveHeadroomDiv, "slack_mib", limitSlack>>20)
	}
}

// limitByLiveHeap sets the soft memory limit to limitOf(the live heap),
// now and after every garbage collection, until ctx ends (the limit is
// then lifted). It does nothing and reports false when the user tuned the
// collector (GOGC or GOMEMLIMIT set).
func limitByLiveHeap(ctx context.Context, limitOf func(live uint64) uint64) bool {
	if userTunedGC() {
		return false
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	set := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return // not reported by this runtime: leave GOGC alone to do it
		}
		debug.SetMemoryLimit(int64(min(limitOf(sample[0].Value.Uint64()), math.MaxInt64/2)))
	}
	set()
	// A collection frees the sentinel and runs its cleanup, which sets
	// the limit from the heap that collection found live and arms the
	// next sentinel: one cheap call per collection, nothing in between.
	var arm func()
	arm = func() {
		runtime.AddCleanup(new(gcSentinel), func(struct{}) {
			defer notifyLimitSet()
			if ctx.Err() != nil {
				debug.SetMemoryLimit(math.MaxInt64)
				return
			}
			set()
			arm()
		}, struct{}{})
	}
	arm()
	return true
}

// limitSet, set by tests only, is called after a collection's cleanup has
// set the limit again (or lifted it): what a test waits for instead of
// sleeping. Atomic: the cleanups of limits armed by other tests run on
// the runtime's own goroutine.
var limitSet atomic.Pointer[func()]

func notifyLimitSet() {
	if fn := limitSet.Load(); fn != nil {
		(*fn)()
	}
}

// gcSentinel is the object whose cleanup marks a collection's end. It
// holds a pointer so that it is not one of the tiny pointer-free objects
// the allocator packs together, whose cleanups may never run.
type gcSentinel struct{ _ *byte }
