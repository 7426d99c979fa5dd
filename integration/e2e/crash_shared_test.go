package e2e

import (
	"syscall"
	"testing"
	"time"
)

// relayLine is what a serve that relays to the vault's owner logs.
const relayLine = "serving through the vault's owning process"

// TestCrashSafetyShared is TestCrashSafety with several processes
// attached (issue 24): two servers share the vault's embedded store, one
// owning it, the other relaying to it. Each run sends a batch of writes
// through one of them (the relay, so they are in flight in two processes,
// or the owner), SIGKILLs the owner at a random moment, and checks,
// through the relay that takes the store over by itself (no restart):
// every note file whole, every answered write and memory there, the store
// equal to the vault after the new owner's first sync. Then a new server
// joins as the relay of the next run.
func TestCrashSafetyShared(t *testing.T) {
	t.Parallel()
	runs, seed, rng := crashSeed(t, 5)
	vault, notes, nextSlot := crashVault(t, rng)
	st := embeddedStore(t)
	env := processEnv(t, st, "VAULTGRAPH_TOOLSETS=graph,memory")
	args := append([]string{"serve", "--vault", vault}, st.args...)
	join := func(role string) *rawStdio {
		s := startRawStdio(t, env, args...)
		s.initialize(t)
		s.waitLog(t, role, readyTimeout)
		return s
	}

	stats := crashStats{tempFiles: map[string]bool{}}
	mems := crashMemories{sent: map[string]bool{}, acked: map[string]bool{}}
	start := time.Now()
	owner := join(ownerLine)
	relay := join(relayLine)
	checkCrashState(t, relay, vault, notes, &stats)
	batchTime := 20 * time.Millisecond
	throughRelay := 0
	for run := range runs {
		via := owner
		if rng.IntN(3) > 0 {
			via = relay
			throughRelay++
		}
		ops := sendCrashBatch(t, via, rng, notes, &nextSlot, run, &batchTime, &stats)
		owner.signal(t, syscall.SIGKILL)
		stats.kills++
		if _, ok := owner.exitCode(readyTimeout); !ok {
			t.Fatal("the killed owner did not exit")
		}
		// The relay answers every request it took: with the owner's
		// answer, with "stopped before answering" for one the owner died
		// serving, or, for one it had not passed on yet, itself as the
		// new owner.
		if via == relay {
			for _, op := range ops {
				relay.wait(t, op.id)
			}
		}
		applyCrashOps(t, run, vault, ops, via.answers(t), notes, &mems, &stats)

		relay.waitLog(t, ownerLine, readyTimeout)
		relay.waitFirstSync(t)
		checkCrashState(t, relay, vault, notes, &stats)
		checkCrashMemories(t, relay, mems, &stats)
		if t.Failed() {
			t.Fatalf("crash (shared): run %d of seed %d failed", run, seed)
		}
		owner, relay = relay, join(relayLine)
		stats.runs++
	}
	t.Logf("crash (shared): %d runs, %d SIGKILLs of the owner in %s (%d batches through the relay): %d writes sent, %d answered, %d landed (%d cut short and repaired by the takeover); %d note checks, all through the process that took the store over; %d memories acknowledged, all present",
		stats.runs, stats.kills, time.Since(start).Round(time.Millisecond), throughRelay, stats.opsSent, stats.opsAnswered, stats.opsLanded, stats.repaired, stats.notesChecked, len(mems.acked))
}
