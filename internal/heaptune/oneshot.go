package heaptune

import (
	"context"
	"log/slog"
	"runtime/debug"
	"sync/atomic"
)

// A one-shot `vaultgraph sync` that owns the embedded store writes the
// whole vault, embeds it and exits. At Go's default GOGC 100 its heap grew
// to twice what the last collection found live: 800-870 MiB resident at
// 100k notes for ~300-420 MB live at the end of the write (the store's
// graph, the vault's index, the parts in flight) and during the embedding.
// Most of that headroom is garbage of parts written long ago, so the sync
// runs under a soft memory limit: syncHeapBudget, and never less than what
// a long-lived owner keeps (the live heap plus a quarter and limitSlack,
// see FollowLiveHeap), so that a vault whose live heap nears the budget
// gets that headroom instead of collections back to back.
//
// syncHeapBudget is what the 600 MB for a one-shot sync of 100k
// notes leaves to the limit: the resident set is the limit's memory plus
// the binary and the state file's mapped pages (~25 MB measured).
const syncHeapBudget = 512 << 20

// syncGCPercent is the collector's target once the live heap is
// syncGCFromLive or more: the heap may then grow to the budget between
// collections, where GOGC 100 collected at twice the live heap, below it.
// A large vault's write, whose live heap grows to most of the budget, then
// collects less often early on, which pays for the collections near the
// budget at its end (at 100k notes, 38-46 collections instead of 45-52
// with GOGC 100 under the same limit: docs/BENCHMARKS.md, "Cold sync
// memory, session 2026-11-26 13:33 (h32)").
const syncGCPercent = 300

// syncGCFromLive is the live heap from which syncGCPercent applies: a
// quarter of the budget. Below it the sync keeps GOGC 100 and a heap of
// about twice what is live, so a small vault's sync stays small: the live
// heap of a 10k-note sync ends near 70 MB, and from an eighth of the
// budget (64 MiB) its peak went from 180-206 to 219-302 MiB (GOGC 300
// from the start: 250-300).
const syncGCFromLive = syncHeapBudget / 4

// OneShotSync keeps a one-shot sync's heap under syncHeapBudget (see
// above) until ctx ends, unless the user set GOGC or GOMEMLIMIT. The
// process exits after the sync, so the collector's target is not put
// back.
func OneShotSync(ctx context.Context, logger *slog.Logger) {
	var raised atomic.Bool // the cleanups of successive collections run one after another
	bounded := limitByLiveHeap(ctx, func(live uint64) uint64 {
		if live >= syncGCFromLive && !raised.Swap(true) {
			debug.SetGCPercent(syncGCPercent)
		}
		return max(syncHeapBudget, live+live/liveHeadroomDiv+limitSlack)
	})
	if bounded {
		logger.Debug("memory limit of a one-shot sync", "budget_mib", syncHeapBudget>>20, "gogc_from_live_mib", syncGCFromLive>>20)
	}
}
