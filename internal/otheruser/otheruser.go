// Package otheruser gives tests a process of another local user: the test
// binary itself, re-run as uid and gid 65534 (nobody) by setpriv
// (util-linux), to play an attacker sharing the machine (issue 43: a
// squatter of the owner socket's names, a foreign peer on it).
//
// It needs root (CI runs as root) and setpriv; elsewhere the test is
// skipped with the reason, or fails when VAULTGRAPH_REQUIRE_OTHER_USER=1
// (CI), so the check cannot quietly stop running.
package otheruser

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// UID is the user the process runs as.
const UID = 65534

// RequireEnv turns a skip into a failure when set to 1.
const RequireEnv = "VAULTGRAPH_REQUIRE_OTHER_USER"

// Command returns the test binary, copied where uid 65534 may run it, to be
// run as that user with env added to this process's environment (the
// caller's TestMain sees env and plays its part). It skips (or fails, see
// RequireEnv) when this process is not root or setpriv is missing.
func Command(t testing.TB, env ...string) *exec.Cmd {
	t.Helper()
	skip := func(why string) {
		t.Helper()
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%s (%s=1)", why, RequireEnv)
		}
		t.Skip(why)
	}
	if os.Geteuid() != 0 {
		skip("needs root, to run a process as uid 65534 with setpriv (CI runs as root)")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		skip("needs setpriv (util-linux) to run a process as uid 65534")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A folder of its own under /tmp: t.TempDir's parent is root's alone.
	dir, err := os.MkdirTemp("", "vg-otheruser-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, filepath.Base(self))
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	return cmd
}
