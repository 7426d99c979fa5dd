package e2e

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph"
)

// TestPlainBuildReportsTheModuleVersion checks the binary TestMain built
// with a plain "go build" (no -ldflags): "version", the MCP handshake and
// the first log line all carry the tree's VERSION with the commit the
// toolchain recorded from git, HEAD's. Nothing says "unknown".
func TestPlainBuildReportsTheModuleVersion(t *testing.T) {
	t.Parallel()
	_, file, _, _ := runtime.Caller(0)
	repo := filepath.Join(filepath.Dir(file), "..", "..")
	head, err := exec.Command("git", "-C", repo, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): the toolchain records no version to check", err)
	}
	wantCommit := strings.TrimSpace(string(head))[:12]
	gitDir, _ := exec.Command("git", "-C", repo, "rev-parse", "--absolute-git-dir").Output()
	commonDir, _ := exec.Command("git", "-C", repo, "rev-parse", "--path-format=absolute", "--git-common-dir").Output()
	if strings.TrimSpace(string(gitDir)) != strings.TrimSpace(string(commonDir)) {
		t.Skip("a linked git worktree: the Go toolchain records no VCS information there (it looks for a .git folder, a worktree has a .git file)")
	}

	code, stdout, stderr := runProc(t, baseEnv(t), "version")
	if code != 0 {
		t.Fatalf("version: exit %d; stderr:\n%s", code, stderr)
	}
	m := regexp.MustCompile(`^vaultgraph (\S+) \((\S+), (go\S+)\)\n$`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("version printed %q, want \"vaultgraph <version> (<commit>, <go>)\"", stdout)
	}
	version, commit := m[1], m[2]
	if strings.TrimSuffix(commit, "-dirty") != wantCommit {
		t.Errorf("commit %q, want HEAD %s", commit, wantCommit)
	}
	// The version is the tree's VERSION with HEAD's commit (docs/RELEASING.md).
	rev, dirty := strings.CutSuffix(commit, "-dirty")
	if want := vaultgraph.BuildVersion(rev, dirty); version != want {
		t.Errorf("version %q, want %q (VERSION %s, commit %s)", version, want, vaultgraph.Version(), commit)
	}
	if strings.Contains(stdout, "unknown") {
		t.Errorf("version says unknown: %q", stdout)
	}

	st := embeddedStore(t)
	vault := copyVault(t, nil)
	c, sp := stdioClient(t, processEnv(t, st), append([]string{"serve", "--vault", vault}, st.args...))
	if got := initialize(t, c).ServerInfo.Version; got != version {
		t.Errorf("serverInfo.version %q, want %q", got, version)
	}
	fields, ok := findLog(sp.stderr.String(), "vaultgraph starting")
	if !ok {
		t.Fatalf("serve logged no start line; stderr:\n%s", sp.stderr.String())
	}
	if fields["version"] != version || fields["commit"] != commit {
		t.Errorf("start line version=%v commit=%v, want %s %s", fields["version"], fields["commit"], version, commit)
	}
}
