package e2e

import (
	"strings"
	"syscall"
	"testing"

	"github.com/vaultgraph/vaultgraph/benchgen"
)

// Issue 49.1: one-shot commands answer once the graph is synced; the
// transformer runs only when asked (sync --embed).

// Log lines of the semantic indexer the tests wait for or rule out.
const (
	logEmbedding    = "semantic: embedding notes"                        // a pass of the transformer starts
	logEmbedDone    = "semantic: embedding done"                         // and ends
	logFastTier     = "semantic: notes searchable through the fast tier" // the static vectors were made
	interruptedText = "interrupted: what was written is kept"
)

// A call with no server running answers a read once the graph is synced,
// without a transformer pass; a search uses the vectors there are plus
// keywords and says so in its warnings; a mistyped tool fails with the
// closest names.
func TestCallDoesNotWaitForEmbedding(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st store) {
		vault := copyVault(t, nil)
		env := processEnv(t, st, builtinEmbedding)

		code, out, errOut := runProc(t, env, cliArgs(st, vault, "call", "get_node", `{"id":"Home.md"}`)...)
		if code != 0 || !strings.Contains(out, `"id":"home.md"`) {
			t.Fatalf("call get_node: exit %d, stdout %.300q; stderr:\n%s", code, out, errOut)
		}
		for _, msg := range []string{logEmbedding, logFastTier} {
			if _, ok := findLog(errOut, msg); ok {
				t.Errorf("call get_node logged %q: a read embedded notes before answering", msg)
			}
		}

		code, out, errOut = runProc(t, env, cliArgs(st, vault, "call", "search", `{"query":"ranking documents by term frequency"}`)...)
		if code != 0 || !strings.HasPrefix(out, "[") {
			t.Fatalf("call search: exit %d, stdout %.300q; stderr:\n%s", code, out, errOut)
		}
		if _, ok := findLog(errOut, logEmbedding); ok {
			t.Error("call search ran a transformer pass")
		}
		if !strings.Contains(errOut, "warning:") || !strings.Contains(errOut, "sync --embed") {
			t.Errorf("call search did not warn that notes wait for the model; stderr:\n%s", errOut)
		}

		code, out, errOut = runProc(t, env, cliArgs(st, vault, "call", "get_nod", `{"id":"Home.md"}`)...)
		if code == 0 || out != "" || !strings.Contains(errOut, "did you mean get_node") {
			t.Errorf("call get_nod: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
		}
	})
}

// A call through a running serve prints its answer and nothing else: no
// error line from the closed connection.
func TestCallThroughServeIsQuiet(t *testing.T) {
	t.Parallel()
	st := embeddedStore(t)
	vault := copyVault(t, nil)
	env := processEnv(t, st)
	args := append([]string{"--vault", vault}, st.args...)
	srv := spawnServe(t, env, args...)
	srv.waitLog(t, ownerLine)
	code, out, errOut := runProc(t, env, append([]string{"call", "get_node", `{"id":"home.md"}`}, args...)...)
	if code != 0 || !strings.Contains(out, `"id":"home.md"`) {
		t.Fatalf("call: exit %d, stdout %.300s; stderr:\n%s", code, out, errOut)
	}
	if strings.Contains(errOut, "level") && strings.Contains(errOut, "ERROR") || strings.Contains(errOut, "closed network connection") {
		t.Errorf("a successful call logged an error:\n%s", errOut)
	}
	code, _, errOut = runProc(t, env, append([]string{"call", "search_by_tag", `{"tags":["x"]}`}, args...)...)
	if code == 0 || !strings.Contains(errOut, "did you mean") {
		t.Errorf("call search_by_tag through serve: exit %d, stderr:\n%s", code, errOut)
	}
}

// sync exits once the graph is synced; sync --embed embeds every note,
// Ctrl-C keeps what it embedded (the fast vectors are not made again) and
// exits 1, and the next run goes on from there.
func TestSyncEmbedIsResumable(t *testing.T) {
	t.Parallel()
	st := embeddedStore(t)
	vault := copyVault(t, nil)
	env := processEnv(t, st, builtinEmbedding)

	code, _, errOut := runProc(t, env, cliArgs(st, vault, "sync")...)
	if code != 0 {
		t.Fatalf("sync: exit %d; stderr:\n%s", code, errOut)
	}
	if _, ok := findLog(errOut, logEmbedding); ok {
		t.Error("a plain sync ran a transformer pass")
	}

	p := startProc(t, env, nil, cliArgs(st, vault, "sync", "--embed")...)
	p.waitLog(t, logEmbedding, readyTimeout)
	p.signal(t, syscall.SIGINT)
	code, ok := p.exitCode(shutdownTimeout)
	if !ok {
		t.Fatalf("sync --embed still running %s after Ctrl-C", shutdownTimeout)
	}
	if _, done := findLog(p.stderr.String(), logEmbedDone); !done {
		// The pass was stopped (not finished before the signal came).
		if code != 1 || !strings.Contains(p.stderr.String(), interruptedText) {
			t.Fatalf("sync --embed after Ctrl-C: exit %d, want 1 and %q; stderr:\n%s", code, interruptedText, p.stderr.String())
		}
	}

	code, _, errOut = runProc(t, env, cliArgs(st, vault, "sync", "--embed")...)
	if code != 0 {
		t.Fatalf("sync --embed again: exit %d; stderr:\n%s", code, errOut)
	}
	if _, ok := findLog(errOut, logFastTier); ok {
		t.Error("sync --embed made the fast vectors again: the interrupted run's were lost")
	}
	code, _, errOut = runProc(t, env, cliArgs(st, vault, "sync", "--embed")...)
	if code != 0 {
		t.Fatalf("sync --embed a third time: exit %d; stderr:\n%s", code, errOut)
	}
	if _, ok := findLog(errOut, logEmbedding); ok {
		t.Errorf("sync --embed embedded notes again after a complete run; stderr:\n%s", errOut)
	}
}

// Ctrl-C stops a first sync (exit 1, saying so) and a sync afterwards
// completes; a second Ctrl-C ends a stopping sync at once.
func TestSyncStopsOnCtrlC(t *testing.T) {
	t.Parallel()
	vault := t.TempDir()
	if _, err := benchgen.Generate(vault, benchgen.Config{Notes: 3000, Seed: 49}); err != nil {
		t.Fatal(err)
	}
	st := embeddedStore(t)
	env := processEnv(t, st, builtinEmbedding)

	p := startProc(t, env, nil, cliArgs(st, vault, "sync")...)
	p.waitLog(t, ownerLine, readyTimeout)
	p.signal(t, syscall.SIGINT)
	code, ok := p.exitCode(shutdownTimeout)
	if !ok {
		t.Fatalf("sync still running %s after Ctrl-C", shutdownTimeout)
	}
	if _, done := findLog(p.stderr.String(), "vault: sync done"); !done && (code != 1 || !strings.Contains(p.stderr.String(), interruptedText)) {
		t.Fatalf("sync after Ctrl-C: exit %d, want 1 and %q; stderr:\n%s", code, interruptedText, p.stderr.String())
	}
	code, _, errOut := runProc(t, env, cliArgs(st, vault, "sync")...)
	if code != 0 {
		t.Fatalf("sync after an interrupted one: exit %d; stderr:\n%s", code, errOut)
	}
	if f, ok := findLog(errOut, "vault: sync done"); !ok || f["notes"] != float64(3000) {
		t.Fatalf("sync after an interrupted one: %v; stderr:\n%s", f, errOut)
	}

	// Two Ctrl-C in a row during a transformer pass: the process ends.
	p = startProc(t, env, nil, cliArgs(st, vault, "sync", "--embed")...)
	p.waitLog(t, logEmbedding, readyTimeout)
	p.signal(t, syscall.SIGINT)
	p.signal(t, syscall.SIGINT)
	code, ok = p.exitCode(shutdownTimeout)
	if !ok || code == 0 {
		t.Fatalf("sync --embed after two Ctrl-C: exited %v, code %d; stderr:\n%s", ok, code, p.stderr.String())
	}
}
