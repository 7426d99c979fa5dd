package heaptune

import (
	"context"
	"io"
	"log/slog"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBoundHeapHeadroomKeepsTheUsersSetting(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, tc := range []struct {
		env, value string
		want       int
	}{
		{"GOGC", "", longLivedGCPercent},
		{"GOGC", "300", 100},
		{"GOMEMLIMIT", "1GiB", 100},
	} {
		t.Setenv("GOGC", "")
		t.Setenv("GOMEMLIMIT", "")
		t.Setenv(tc.env, tc.value)
		debug.SetGCPercent(100)
		LongLived(logger)
		if got := debug.SetGCPercent(100); got != tc.want {
			t.Errorf("%s=%q: GC percent %d, want %d", tc.env, tc.value, got, tc.want)
		}
	}
}

// FollowLiveHeap sets a memory limit of the live heap plus headroom, sets
// it again after each collection as the live heap changes, lifts it when
// its context ends, and leaves a user's GOGC or GOMEMLIMIT alone.
func TestFollowLiveHeap(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	defer debug.SetMemoryLimit(math.MaxInt64)
	limit := func() int64 { return debug.SetMemoryLimit(-1) } // -1 reads it
	live := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	waitLimit := func(what string, ok func(int64) bool) {
		t.Helper()
		if !collectUntil(t, func() bool { return ok(limit()) }) {
			t.Fatalf("%s: limit %d MiB, live heap %d MiB", what, limit()>>20, live()>>20)
		}
	}

	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "200")
	FollowLiveHeap(t.Context(), logger)
	if got := limit(); got != math.MaxInt64 {
		t.Fatalf("GOGC set by the user: limit %d, want none", got)
	}

	t.Setenv("GOGC", "")
	ctx, cancel := context.WithCancel(t.Context())
	FollowLiveHeap(ctx, logger)
	near := func(l int64) bool {
		want := int64(live() + live()/liveHeadroomDiv + limitSlack)
		return l >= want-want/10 && l <= want+want/10
	}
	waitLimit("after a collection", near)
	ballast := make([]byte, 64<<20) // live from now on: the limit must rise with it
	for i := range ballast {
		ballast[i] = byte(i)
	}
	waitLimit("with 64 MiB more live", func(l int64) bool { return l >= 64<<20+limitSlack && near(l) })
	runtime.KeepAlive(ballast)
	cancel()
	waitLimit("after the context ended", func(l int64) bool { return l == math.MaxInt64 })
}

// A warm start runs the collector at warmStartGCPercent and puts the
// long-lived target back after it; a user's GOGC or GOMEMLIMIT is left
// alone.
func TestRelaxHeapForWarmStart(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	debug.SetGCPercent(longLivedGCPercent)
	restore := WarmStart()
	if got := debug.SetGCPercent(warmStartGCPercent); got != warmStartGCPercent {
		t.Fatalf("during the warm start: GC percent %d, want %d", got, warmStartGCPercent)
	}
	restore()
	if got := debug.SetGCPercent(longLivedGCPercent); got != longLivedGCPercent {
		t.Fatalf("after it: GC percent %d, want %d", got, longLivedGCPercent)
	}

	t.Setenv("GOGC", "300")
	debug.SetGCPercent(300)
	WarmStart()()
	if got := debug.SetGCPercent(300); got != 300 {
		t.Fatalf("GOGC set by the user: GC percent %d, want 300", got)
	}
}

// OneShotSync sets the one-shot sync's budget as the memory limit while
// the live heap is small, raises the collector's target once the live
// heap is syncGCFromLive, lifts the limit when its context ends,
// and leaves a user's GOGC or GOMEMLIMIT alone.
func TestBoundSyncHeap(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	defer debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	gcPercent := func() int { p := debug.SetGCPercent(100); debug.SetGCPercent(p); return p }
	limit := func() int64 { return debug.SetMemoryLimit(-1) }

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetMemoryLimit(math.MaxInt64)
	OneShotSync(t.Context(), logger)
	require.Equal(t, int64(math.MaxInt64), limit(), "GOMEMLIMIT set by the user: no limit of ours")

	t.Setenv("GOMEMLIMIT", "")
	ctx, cancel := context.WithCancel(t.Context())
	OneShotSync(ctx, logger)
	require.Equal(t, int64(syncHeapBudget), limit(), "a small live heap: the budget")
	runtime.GC() // the cleanup sets it again from this collection's live heap
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	if metrics.Read(live); live[0].Value.Uint64() < syncGCFromLive {
		require.Equal(t, 100, gcPercent(), "a small live heap: GOGC as it was")
	}
	ballast := make([]byte, syncGCFromLive)
	for i := range ballast {
		ballast[i] = byte(i)
	}
	collectUntil(t, func() bool { return gcPercent() == syncGCPercent })
	require.Equal(t, syncGCPercent, gcPercent(), "a live heap of syncGCFromLive: the budget's own target")
	runtime.KeepAlive(ballast)
	cancel()
	collectUntil(t, func() bool { return limit() == math.MaxInt64 })
	require.Equal(t, int64(math.MaxInt64), limit(), "lifted once the sync is over")
}

// collectUntil runs collections until done says so, each time waiting for
// a collection's cleanup to have set the memory limit (limitSet: the
// cleanups run after the collection, on the runtime's goroutine), for at
// most a minute in all; it reports whether done said so.
func collectUntil(t *testing.T, done func() bool) bool {
	t.Helper()
	set := make(chan struct{}, 1)
	hear := func() {
		select {
		case set <- struct{}{}:
		default:
		}
	}
	limitSet.Store(&hear)
	defer limitSet.Store(nil)
	deadline := time.After(time.Minute)
	for !done() {
		runtime.GC()
		select {
		case <-set:
		case <-deadline:
			return done()
		}
	}
	return true
}
