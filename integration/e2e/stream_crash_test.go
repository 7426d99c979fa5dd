package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/benchgen"
)

// TestFirstSyncSurvivesSIGKILL kills "vaultgraph sync" at a random moment of
// its first sync into an empty embedded store: a vault of more than two
// parts, so that the kill usually lands while the sync streams (vault/
// stream.go writes and commits 2,048 notes at a time, resolving links
// against an index of every note, some of them to notes of parts not written
// yet). The next sync on the same state folder must exit 0, and a server
// then answers every read exactly as one on a state that synced without a
// kill: the same notes, links, degrees, hubs, tags and warnings.
//
// The first run is not killed: it gives the reference answers and the time a
// whole sync takes, within which the kills are drawn (uniformly, as in
// TestCrashSafety).
func TestFirstSyncSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	runs, _, rng := crashSeed(t, 50) // 4 in CI, 20 with make soak
	vault := filepath.Join(t.TempDir(), "vault")
	m, err := benchgen.Generate(vault, benchgen.Config{Notes: 4600, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	calls := streamCrashCalls(m)
	st := embeddedStore(t)
	env := processEnv(t, st)

	start := time.Now()
	code, _, errOut := runProc(t, env, cliArgs(st, vault, "sync")...)
	whole := time.Since(start)
	if code != 0 {
		t.Fatalf("reference sync: exit %d; stderr:\n%s", code, errOut)
	}
	want := answerAll(t, st, vault, calls)
	t.Logf("reference: %d notes synced in %s, %d reads", len(m.Notes), whole.Round(time.Millisecond), len(calls))

	midway, partly := 0, 0
	for run := range runs {
		st := embeddedStore(t)
		// The first quarter is the start and the walk, before any part is
		// written, the last one the end of a sync whose parts are all
		// written: drawn from the middle half, about half of the kills
		// leave some parts written and not others.
		delay := whole/4 + time.Duration(rng.Int64N(int64(whole/2)))
		p := startProc(t, env, nil, cliArgs(st, vault, "sync")...)
		select {
		case <-p.done:
		case <-time.After(delay):
		}
		finished := p.exited()
		p.signal(t, syscall.SIGKILL)
		<-p.done
		if !finished {
			midway++
		}

		code, _, errOut := runProc(t, env, cliArgs(st, vault, "sync")...)
		if code != 0 {
			t.Fatalf("run %d (killed after %s): the next sync exited %d; stderr:\n%s", run, delay, code, errOut)
		}
		done, _ := findLog(errOut, "vault: sync done")
		read, _ := done["read"].(float64) // files the next sync had to read
		if read > 0 && int(read) < len(m.Notes) {
			partly++ // the kill left some parts written and not others
		}
		t.Logf("run %d: killed after %s (exited before: %v), the next sync read %v files", run, delay.Round(time.Millisecond), finished, read)
		got := answerAll(t, st, vault, calls)
		for i, c := range calls {
			if got[i] != want[i] {
				t.Errorf("run %d (killed after %s, next sync %v): %s %s differs from the reference\ngot:  %.600s\nwant: %.600s",
					run, delay, done, c.name, c.args, got[i], want[i])
			}
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d runs, %d killed before the sync ended, %d with some of the notes written, every read equal to the reference",
		runs, midway, partly)
}

type streamCrashCall struct {
	name string
	args map[string]any
}

// streamCrashCalls are reads that see every part of the vault: the hubs by
// each metric (degrees and PageRank depend on every link), the notes of the
// most popular tags, and one note in every 100 with its neighbours.
func streamCrashCalls(m *benchgen.Manifest) []streamCrashCall {
	calls := []streamCrashCall{
		{"get_hubs", map[string]any{"metric": "in_degree", "limit": 50}},
		{"get_hubs", map[string]any{"metric": "out_degree", "limit": 50}},
		{"get_hubs", map[string]any{"metric": "pagerank", "limit": 50}},
	}
	for _, tag := range m.Tags[:min(3, len(m.Tags))] {
		calls = append(calls, streamCrashCall{"search_by_tags", map[string]any{"tags": []string{tag}, "limit": 50}})
	}
	for i := 0; i < len(m.Notes); i += 100 {
		id := strings.ToLower(m.Notes[i].Path)
		calls = append(calls,
			streamCrashCall{"get_node", map[string]any{"id": id, "depth": 1}},
			streamCrashCall{"get_neighbors", map[string]any{"id": id, "direction": "both", "limit": 50}})
	}
	return calls
}

// answerAll starts a server on the synced state and returns each call's
// answer (its text and warnings) as one string.
func answerAll(t *testing.T, st store, vault string, calls []streamCrashCall) []string {
	t.Helper()
	c := startStdio(t, st, vault)
	defer c.Close()
	out := make([]string, len(calls))
	for i, call := range calls {
		r := callTool(t, c, call.name, call.args)
		if r.isError {
			t.Fatalf("%s %v: error %s", call.name, call.args, r.text)
		}
		w, _ := json.Marshal(r.warnings)
		out[i] = fmt.Sprintf("%s warnings=%s", r.text, w)
	}
	return out
}
