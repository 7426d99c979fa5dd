package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// renameCrashRunsEnv overrides the number of runs of
// TestCrashDuringRenameLeavesNoBrokenLink ("make soak" sets 200).
const (
	renameCrashRunsEnv    = "VAULTGRAPH_RENAME_CRASH_RUNS"
	defaultRenameCrashRun = 15
	renameReferrers       = 300
)

var wikiTargetRe = regexp.MustCompile(`\[\[([^\]|#]+)`)

// TestCrashDuringRenameLeavesNoBrokenLink SIGKILLs "vaultgraph serve" at a
// random instant while it renames a note that 300 others link to, starts
// it again, and checks that the rename is all or nothing to the reader of
// the vault once the restart has run: the note is under one name, every
// referrer links to it under that name (none to the old one), and the
// graph says every referrer links to it, as a fresh sync of the disk does.
func TestCrashDuringRenameLeavesNoBrokenLink(t *testing.T) {
	t.Parallel()
	runs := defaultRenameCrashRun
	if v, err := strconv.Atoi(os.Getenv(renameCrashRunsEnv)); err == nil && v > 0 {
		runs = v
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("rename crash: seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))

	vault := filepath.Join(t.TempDir(), "vault")
	name := "hub-0"
	writeFile(t, vault, "hub/"+name+".md", "the hub")
	for i := range renameReferrers {
		writeFile(t, vault, fmt.Sprintf("refs/%02d/ref-%03d.md", i%10, i),
			fmt.Sprintf("ref %d: [[%s]] and [[%s#Part|the hub]]\n", i, name, name))
	}
	st := embeddedStore(t)
	env := processEnv(t, st, "VAULTGRAPH_LOG_LEVEL=warn", "VAULTGRAPH_TOOLSETS=graph")
	args := append([]string{"serve", "--vault", vault}, st.args...)

	// Kills land after the note has moved (the rename is under way),
	// uniformly within the time the rest of a whole rename took in run 0.
	rewriteTime := 20 * time.Millisecond
	interrupted := 0
	start := time.Now()
	for run := range runs {
		s := startRawStdio(t, env, args...)
		s.initialize(t)
		name = checkRenameState(t, s, vault, run)

		if killMidRename(t, s, vault, run, name, rng, &rewriteTime) {
			interrupted++
		}
	}
	s := startRawStdio(t, env, args...)
	s.initialize(t)
	checkRenameState(t, s, vault, runs)
	t.Logf("rename crash: %d runs of a rename with %d referrers (rewriting them took %s), %d killed before the answer, in %s; no broken link after any restart",
		runs, renameReferrers, rewriteTime.Round(time.Millisecond), interrupted, time.Since(start).Round(time.Millisecond))
}

// checkRenameState checks the vault and the graph after a restart and
// returns the hub's current name.
func checkRenameState(t *testing.T, s *rawStdio, vault string, run int) string {
	t.Helper()
	hubs, err := filepath.Glob(filepath.Join(vault, "hub", "*.md"))
	if err != nil || len(hubs) != 1 {
		t.Fatalf("run %d: the hub is under %d names: %v", run, len(hubs), hubs)
	}
	name := strings.TrimSuffix(filepath.Base(hubs[0]), ".md")
	for i := range renameReferrers {
		rel := fmt.Sprintf("refs/%02d/ref-%03d.md", i%10, i)
		for _, m := range wikiTargetRe.FindAllStringSubmatch(readFile(t, vault, rel), -1) {
			if m[1] != name {
				t.Fatalf("run %d: %s links to [[%s]], the hub is %s", run, rel, m[1], name)
			}
		}
	}
	msg := s.wait(t, s.send(t, "tools/call", map[string]any{"name": "get_node", "arguments": map[string]any{"id": "hub/" + name + ".md", "depth": 1}}))
	r := rawReply(t, "get_node", msg)
	var node struct {
		IncomingCount int `json:"incomingCount"`
	}
	if err := json.Unmarshal([]byte(r.text), &node); err != nil || node.IncomingCount != renameReferrers {
		t.Fatalf("run %d: the graph has %d notes linking to %s, the disk %d: %.300s", run, node.IncomingCount, name, renameReferrers, r.text)
	}
	return name
}

// killMidRename renames hub/<name>.md to hub-<run+1> through s and kills s
// with SIGKILL while the rename rewrites its referrers: run 0 lets the
// rename finish and measures it into rewriteTime, later runs kill at a
// uniformly random instant within that time. It reports whether the kill
// came before the answer.
func killMidRename(t *testing.T, s *rawStdio, vault string, run int, name string, rng *rand.Rand, rewriteTime *time.Duration) (interrupted bool) {
	t.Helper()
	next := fmt.Sprintf("hub-%d", run+1)
	id := s.send(t, "tools/call", map[string]any{"name": "update_node", "arguments": map[string]any{"id": "hub/" + name + ".md", "title": next}})
	if !eventuallyEvery(callTimeout, 100*time.Microsecond, func() bool { return fileExists(vault, "hub/"+next+".md") || s.answers(t)[id] != nil }) {
		t.Fatalf("run %d: the rename did not start; stderr:\n%s", run, s.stderr.String())
	}
	moved := time.Now()
	if run == 0 {
		s.wait(t, id) // measure a whole rename once, then kill within it
		*rewriteTime = time.Since(moved)
	} else {
		time.Sleep(time.Duration(rng.Int64N(int64(*rewriteTime) + 1)))
	}
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil && !s.exited() {
		t.Fatal(err)
	}
	if _, ok := s.exitCode(readyTimeout); !ok {
		t.Fatal("the killed process did not exit")
	}
	return s.answers(t)[id] == nil
}
