package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// setupCrashRunsEnv overrides the number of runs of
// TestKilledSetupLeavesTheClientFileWhole (VAULTGRAPH_SOAK=1: 300).
const (
	setupCrashRunsEnv    = "VAULTGRAPH_SETUP_CRASH_RUNS"
	defaultSetupCrashRun = 24
	setupOtherServers    = 5000 // ~0.4 MB of JSONC, so that a write takes a while
)

// TestKilledSetupLeavesTheClientFileWhole SIGKILLs "vaultgraph setup" at a
// random instant while it writes a client's configuration file (a large
// JSONC file with comments), over and over, each run switching the entry's
// --command, and checks after each kill that the file is byte for byte
// either as it was before that run or as the run would have left it (never
// half written, never invalid), and that every backup beside it is a whole
// earlier version. Kills land after the first file of the write appears in
// the folder, uniformly within the time the rest of an uninterrupted write
// took in run 1 (from the first new file to the
// rename), and a quarter more.
func TestKilledSetupLeavesTheClientFileWhole(t *testing.T) {
	t.Parallel()
	runs := defaultSetupCrashRun
	if os.Getenv("VAULTGRAPH_SOAK") != "" {
		runs = 300
	}
	runs, seed, rng := crashPlan(t, runs, setupCrashRunsEnv)

	dir := t.TempDir()
	vault := t.TempDir()
	cfg := filepath.Join(dir, "claude_desktop_config.json")
	var b strings.Builder
	b.WriteString("// the user's servers, kept as they are\n{\n\t\"mcpServers\": {\n")
	for i := range setupOtherServers {
		fmt.Fprintf(&b, "\t\t\"server-%05d\": {\"command\": \"/usr/bin/s%d\", \"args\": [\"--flag\", \"é%d\"]}, // server %d\n", i, i, i, i)
	}
	b.WriteString("\t},\n\t\"theme\": \"dark\", /* trailing comma next */\n}\n")
	original := b.String()
	if err := os.WriteFile(cfg, []byte(original), 0o600); err != nil {
		t.Fatal(err)
	}
	env := baseEnv(t)
	commands := [2]string{"/opt/a/vaultgraph", "/opt/b/vaultgraph"}
	setup := func(run int) *proc {
		return startProc(t, env, nil, "setup", "claude-desktop", "--client-config", cfg, "--vault", vault, "--command", commands[run%2])
	}
	read := func() string {
		data, err := os.ReadFile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	// names lists the folder.
	names := func() map[string]bool {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, e := range entries {
			out[e.Name()] = true
		}
		return out
	}

	// stat is the file's identity: the replacing rename changes it.
	stat := func() os.FileInfo {
		st, err := os.Stat(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}

	// Runs 0 and 1 go to the end: the file with either command, and the
	// time from the first new file in the folder to the replacing rename.
	var want [2]string
	var writeTime time.Duration
	for run := range 2 {
		before, old := names(), stat()
		p := setup(run)
		var appeared, replaced time.Time
		if !eventuallyEvery(callTimeout, 100*time.Microsecond, func() bool {
			if appeared.IsZero() && len(names()) > len(before) {
				appeared = time.Now()
			}
			if replaced.IsZero() && !os.SameFile(old, stat()) {
				replaced = time.Now()
			}
			return p.exited()
		}) {
			t.Fatalf("run %d: setup did not end", run)
		}
		if code, _ := p.exitCode(0); code != 0 {
			t.Fatalf("run %d: setup exited %d: %s", run, code, p.stderr.String())
		}
		want[run%2] = read()
		if !strings.Contains(want[run%2], commands[run%2]) || !strings.Contains(want[run%2], "\"server-04999\"") {
			t.Fatalf("run %d: the file lacks the entry or the user's servers", run)
		}
		if !appeared.IsZero() && !replaced.IsZero() {
			writeTime = replaced.Sub(appeared)
		}
	}
	if writeTime <= 0 {
		writeTime = 20 * time.Millisecond
	}
	versions := map[string]bool{original: true, want[0]: true, want[1]: true}

	var killed, unchanged, completed int
	for run := 2; run < runs+2; run++ {
		old := read()
		before := names()
		p := setup(run)
		if !eventuallyEvery(callTimeout, 100*time.Microsecond, func() bool { return p.exited() || len(names()) > len(before) }) {
			t.Fatalf("run %d: setup neither wrote nor ended; stderr:\n%s", run, p.stderr.String())
		}
		time.Sleep(time.Duration(rng.Int64N(int64(writeTime)*5/4 + 1)))
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil && !p.exited() {
			t.Fatal(err)
		}
		code, ok := p.exitCode(readyTimeout)
		if !ok {
			t.Fatal("the killed setup did not exit")
		}
		if code != -1 && code != 0 {
			t.Fatalf("run %d: setup exited %d: %s", run, code, p.stderr.String())
		}
		if code == -1 {
			killed++
		}
		switch got := read(); got {
		case old:
			unchanged++
		case want[run%2]:
			completed++
		default:
			t.Fatalf("run %d (seed %d): the client's file is neither as it was nor as planned: %d bytes, %d and %d wanted; its end:\n%s",
				run, seed, len(got), len(old), len(want[run%2]), got[max(0, len(got)-300):])
		}
	}
	temps := 0
	for name := range names() {
		path := filepath.Join(dir, name)
		switch {
		case name == filepath.Base(cfg):
		case strings.HasPrefix(name, filepath.Base(cfg)+".vaultgraph-backup-"):
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !versions[string(data)] {
				t.Errorf("the backup %s is not a whole earlier version of the file (%d bytes)", name, len(data))
			}
		case strings.HasPrefix(name, "."+filepath.Base(cfg)+".") && strings.HasSuffix(name, ".tmp"):
			temps++
		default:
			t.Errorf("setup left %s beside the client's file", name)
		}
	}
	t.Logf("setup crash: %d runs (a write took %s), %d killed: the file as it was (killed before the rename) %d times, as planned %d times, never anything else; %d hidden temporary files left by kills",
		runs, writeTime.Round(time.Microsecond), killed, unchanged, completed, temps)
}
