package container

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// imageUID is the user the image runs as (distroless's nonroot).
const imageUID = 65532

// Waits of the sandbox test: a start syncs the example vault, milliseconds
// normally; generous for a loaded machine with the race detector elsewhere.
const (
	startTimeout = 60 * time.Second
	stopTimeout  = 15 * time.Second
)

// sandbox is an empty root folder holding only the binary, as the image
// does, with the vault and state folders to bind there.
type sandbox struct {
	root, vault, state string
}

// requireSandbox skips t unless this machine can run the sandbox: Linux,
// root (to chroot, mount and change user), unshare, chroot and mount.
// VAULTGRAPH_REQUIRE_SANDBOX=1 (CI) turns the skip into a failure.
func requireSandbox(t *testing.T) {
	t.Helper()
	reason := ""
	switch {
	case runtime.GOOS != "linux":
		reason = "needs Linux mount namespaces"
	case os.Geteuid() != 0:
		reason = "needs root to chroot, mount and run as another user"
	default:
		for _, tool := range []string{"unshare", "chroot", "mount", "sh"} {
			if _, err := exec.LookPath(tool); err != nil {
				reason = tool + " is not installed"
			}
		}
	}
	if reason == "" {
		out, err := exec.Command("unshare", "--mount", "--propagation", "private", "true").CombinedOutput()
		if err != nil {
			reason = fmt.Sprintf("unshare --mount fails here: %v %s", err, strings.TrimSpace(string(out)))
		}
	}
	if reason == "" {
		return
	}
	if os.Getenv("VAULTGRAPH_REQUIRE_SANDBOX") == "1" {
		t.Fatalf("the container sandbox check cannot run: %s", reason)
	}
	t.Skipf("the container sandbox check cannot run: %s", reason)
}

// buildImageBinary builds the image's binary for this machine's
// architecture with the image's own build step (scripts/dist).
func buildImageBinary(t *testing.T) string {
	t.Helper()
	out := t.TempDir()
	cmd := exec.Command("go", "run", "./scripts/dist", "-binaries-only", "-out", out, "-targets", "linux/"+runtime.GOARCH)
	cmd.Dir = repoRoot(t)
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "scripts/dist: %s", msg)
	return filepath.Join(out, "bin", "linux_"+runtime.GOARCH, "vaultgraph")
}

// newSandbox lays out the root (the binary, root-owned 0755, and the empty
// mount points) and a vault and a state folder owned by the image's user,
// the vault a copy of the example vault.
func newSandbox(t *testing.T, bin string) sandbox {
	t.Helper()
	base := t.TempDir()
	sb := sandbox{root: filepath.Join(base, "root"), vault: filepath.Join(base, "vault"), state: filepath.Join(base, "state")}
	for _, d := range []string{filepath.Join(sb.root, "vault"), filepath.Join(sb.root, "state"), sb.state} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	data, err := os.ReadFile(bin)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(sb.root, "vaultgraph"), data, 0o755))
	require.NoError(t, os.CopyFS(sb.vault, os.DirFS(filepath.Join(repoRoot(t), "examples", "vault"))))
	for _, d := range []string{sb.vault, sb.state} {
		require.NoError(t, filepath.WalkDir(d, func(p string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, imageUID, imageUID)
		}))
	}
	// The root itself is readable by everyone, writable by no one but root.
	require.NoError(t, os.Chmod(base, 0o755))
	return sb
}

// command runs the binary with args as the image runs it: in a mount
// namespace of its own, the root bound read-only, the vault and state bound
// writable, chrooted there as user 65532, with only env in its environment.
// unshare and sh exec into chroot, which execs the binary: the process's
// PID is vaultgraph's.
func (sb sandbox) command(env []string, args ...string) *exec.Cmd {
	script := `set -e
mount --bind "$1" "$1"
mount -o remount,bind,ro "$1"
mount --bind "$2" "$1/vault"
mount --bind "$3" "$1/state"
root=$1; shift 3
exec chroot --userspec=65532:65532 "$root" /vaultgraph "$@"`
	cmd := exec.Command("unshare", append([]string{"--mount", "--propagation", "private", "sh", "-c", script, "sh", sb.root, sb.vault, sb.state}, args...)...)
	cmd.Env = append([]string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}, env...)
	return cmd
}

// imageEnv is the environment the image sets, plus the HTTP settings a
// team's compose file gives the server.
func imageEnv(addr string) []string {
	return []string{
		"VAULTGRAPH_VAULT=/vault",
		"VAULTGRAPH_STATE_DIR=/state",
		"VAULTGRAPH_HTTP_ADDR=" + addr,
		"VAULTGRAPH_HTTP_TOKENS=sandbox-token",
		"VAULTGRAPH_LOG_FORMAT=json",
		"VAULTGRAPH_EMBEDDING_PROVIDER=none",
	}
}

// lockedBuffer collects a process's stderr for the test to read.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestImageBinaryRunsAsNonRootFromAnEmptyReadOnlyRoot is the check of the
// container image that needs no Docker engine: its binary, built by its own
// build step, serves the example vault over HTTP as user 65532 from a root
// that holds nothing but the binary and is read-only; the healthcheck
// command reports healthy; a tool answers over HTTP; a write reaches the
// vault volume; the embedded store's state lands in the state volume; a
// write anywhere else fails; SIGTERM stops it cleanly.
func TestImageBinaryRunsAsNonRootFromAnEmptyReadOnlyRoot(t *testing.T) {
	requireSandbox(t)
	sb := newSandbox(t, buildImageBinary(t))

	entries, err := os.ReadDir(sb.root)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"vaultgraph", "vault", "state"}, names, "nothing in the root but the binary and the mount points")

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	serve := sb.command(imageEnv(addr), "serve")
	var stderr lockedBuffer
	serve.Stderr = &stderr
	require.NoError(t, serve.Start())
	// exited closes once serve has exited, with waitErr set.
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = serve.Wait(); close(exited) }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			_ = serve.Process.Kill()
			<-exited
		}
	})

	url := "http://" + addr
	deadline := time.Now().Add(startTimeout)
	for {
		resp, err := http.Get(url + "/readyz") // ready: the first sync is done
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-exited:
			t.Fatalf("serve exited (%v) before /readyz answered; stderr:\n%s", waitErr, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz did not answer 200 within %s; stderr:\n%s", startTimeout, stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}

	// The process, now vaultgraph itself (unshare, sh and chroot exec
	// into it), runs as the image's user.
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", serve.Process.Pid))
	require.NoError(t, err)
	assert.Contains(t, string(status), "Name:\tvaultgraph\n")
	{
		sc := bufio.NewScanner(strings.NewReader(string(status)))
		for sc.Scan() {
			if uid, ok := strings.CutPrefix(sc.Text(), "Uid:"); ok {
				f := strings.Fields(uid)
				require.Len(t, f, 4)
				assert.Equal(t, []string{"65532", "65532", "65532", "65532"}, f, "real, effective, saved and filesystem uid")
			}
		}
	}

	t.Run("the image's healthcheck command reports healthy", func(t *testing.T) {
		out, err := sb.command(imageEnv(addr), "health").CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Contains(t, string(out), "ok: "+url+"/healthz answered 200 OK")
		out, err = sb.command(imageEnv(addr), "health", "--ready").CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Contains(t, string(out), "ok: "+url+"/readyz answered 200 OK")
	})

	t.Run("a tool answers over HTTP and a write reaches the vault volume", func(t *testing.T) {
		tr, err := transport.NewStreamableHTTP(url+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer sandbox-token"}))
		require.NoError(t, err)
		c := client.NewClient(tr)
		t.Cleanup(func() { _ = c.Close() })
		ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
		defer cancel()
		require.NoError(t, c.Start(ctx))
		var init mcp.InitializeRequest
		init.Params.ClientInfo = mcp.Implementation{Name: "container-check", Version: "1"}
		res, err := c.Initialize(ctx, init)
		require.NoError(t, err)
		assert.Equal(t, "vaultgraph", res.ServerInfo.Name)

		call := func(name string, args map[string]any) string {
			var req mcp.CallToolRequest
			req.Params.Name, req.Params.Arguments = name, args
			r, err := c.CallTool(ctx, req)
			require.NoError(t, err)
			require.False(t, r.IsError, "%s: %+v", name, r.Content)
			require.NotEmpty(t, r.Content)
			text, ok := r.Content[0].(mcp.TextContent)
			require.True(t, ok)
			return text.Text
		}
		var node struct {
			ID    string `json:"id"`
			Title string `json:"title"`
		}
		require.NoError(t, json.Unmarshal([]byte(call("get_node", map[string]any{"id": "Home.md"})), &node))
		assert.Equal(t, "home.md", node.ID)

		call("create_node", map[string]any{"title": "From the sandbox", "directory": "inbox", "content": "written as user 65532"})
		created, err := filepath.Glob(filepath.Join(sb.vault, "inbox", "*.md"))
		require.NoError(t, err)
		require.Len(t, created, 1, "create_node wrote one file into the vault volume")
		st, err := os.Stat(created[0])
		require.NoError(t, err)
		assert.Equal(t, uint32(imageUID), st.Sys().(*syscall.Stat_t).Uid, "the note belongs to the image's user")
	})

	t.Run("state goes to the state volume, nowhere else", func(t *testing.T) {
		var files int
		require.NoError(t, filepath.WalkDir(sb.state, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files++
			}
			return err
		}))
		assert.Positive(t, files, "the embedded store keeps its state in /state")
		entries, err := os.ReadDir(filepath.Join(sb.root, "state"))
		require.NoError(t, err)
		assert.Empty(t, entries, "the mount point under the root stays empty: the state is on the volume")
	})

	t.Run("the root is read-only", func(t *testing.T) {
		out, err := sb.command(imageEnv(addr), "init", "/vault", "--output", "/vaultgraph.yaml").CombinedOutput()
		require.Error(t, err)
		assert.Contains(t, string(out), "read-only file system")
		assert.NoFileExists(t, filepath.Join(sb.root, "vaultgraph.yaml"))
	})

	require.NoError(t, serve.Process.Signal(syscall.SIGTERM))
	select {
	case <-exited:
		assert.NoError(t, waitErr, "SIGTERM ends serve cleanly; stderr:\n%s", stderr.String())
	case <-time.After(stopTimeout):
		t.Fatalf("serve did not stop within %s of SIGTERM", stopTimeout)
	}
	assert.NotContains(t, stderr.String(), `"level":"ERROR"`, "stderr:\n%s", stderr.String())
}
