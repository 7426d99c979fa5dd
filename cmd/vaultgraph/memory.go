package main

import (
	"log/slog"
	"os"
	"runtime/debug"
)

// longLivedGCPercent is the garbage collector's target for processes that
// stay up holding a vault (serve, view, sync --watch): the heap may grow
// to 1.5× what is live before a collection, instead of Go's default 2×.
// Such a process is idle most of the time and allocates little once it
// has synced, so the extra collections cost little CPU, while the
// default's headroom was the largest part of its resident memory (10k
// notes: ~50 MB live, ~118 MB anonymous RSS; docs/BENCHMARKS.md).
const longLivedGCPercent = 50

// boundHeapHeadroom applies longLivedGCPercent unless the user tuned the
// collector themselves (GOGC or GOMEMLIMIT in the environment).
func boundHeapHeadroom(logger *slog.Logger) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(longLivedGCPercent)
	logger.Debug("garbage collector target set for a long-lived process", "gogc", longLivedGCPercent)
}
