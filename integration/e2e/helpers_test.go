package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
)

// Timeouts of the suite. They bound waits for something that normally
// takes milliseconds; every wait ends at the event, so the bounds cost a
// passing run nothing and are sized for a machine loaded far beyond CI (the
// suite, race detector on, beside a loop of cold builds at a load average
// of 30-40 on 2 cores: calls took over 30 s, a watcher write over 20 s, an
// exit at the end of input 30 s).
const (
	// readyTimeout bounds a server start: open the store, sync the vault,
	// listen.
	readyTimeout = 3 * time.Minute
	// watchTimeout bounds how long a file edited on disk may take to reach
	// the store through the watcher.
	watchTimeout = time.Minute
	// shutdownTimeout bounds how long a server may take to exit after
	// SIGTERM or the end of its stdin (it once took 5 s on a busy machine,
	// which the suite's old 5 s limit failed).
	shutdownTimeout = 2 * time.Minute
	// callTimeout bounds one MCP request.
	callTimeout = 2 * time.Minute
)

// Tokens the HTTP servers accept: rwToken has every tool, roToken only the
// read-only ones.
const (
	rwToken  = "rw-tok"
	roToken  = "ro-tok"
	tokenEnv = "VAULTGRAPH_HTTP_TOKENS=" + rwToken + ",ro:" + roToken
)

// bin is the vaultgraph binary TestMain builds.
var bin string

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

// suiteParallel is the suite's -parallel when the command line sets none
// (neo4jtest.DefaultParallel). Its tests mostly wait: for processes to
// start, sync and exit, for watchers, for Neo4j.
const suiteParallel = 4

func testMain(m *testing.M) int {
	flag.Parse()
	neo4jtest.Warm() // Neo4j starts while the binary is built
	if err := neo4jtest.DefaultParallel(suiteParallel); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	dir, err := os.MkdirTemp("", "vaultgraph-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin = filepath.Join(dir, "vaultgraph")
	// -buildvcs=auto is go build's own default, restated because a
	// machine's GOFLAGS may turn it off: the binary records the module
	// version from git as a user's plain "go build" does.
	args := []string{"build", "-buildvcs=auto", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, "github.com/vaultgraph/vaultgraph/cmd/vaultgraph")
	start := time.Now()
	build := exec.Command("go", args...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go %s: %v\n", strings.Join(args, " "), err)
		return 1
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "e2e: built the binary (race=%v) in %s\n", raceEnabled, time.Since(start).Round(time.Millisecond))
	}
	return neo4jtest.Main(m)
}

// ---- stores -------------------------------------------------------------

// store selects the store a vaultgraph process uses.
type store struct {
	name  string
	args  []string          // flags: --store and, for embedded, --state-dir
	env   []string          // VAULTGRAPH_NEO4J_* for Neo4j
	neo4j *neo4jtest.Server // nil for the embedded store
}

// neo4jMu keeps Neo4j subtests that need the database to themselves
// (neo4jStore: memories and documents, which belong to no vault's project,
// the store's list of projects, a stopped server) apart from every other
// Neo4j subtest; those that touch only their own vault's project
// (neo4jStoreSharing) run side by side, each vault a project of its own.
var neo4jMu sync.RWMutex

// embeddedStore is the embedded store in a state directory of t's own.
func embeddedStore(t *testing.T) store {
	return store{name: "embedded", args: []string{"--store", "embedded", "--state-dir", t.TempDir()}}
}

// neo4jStore returns the shared Neo4j, emptied, for t alone: it holds
// neo4jMu until t ends. It skips t when no Neo4j is available.
func neo4jStore(t *testing.T) store {
	t.Helper()
	srv := neo4jtest.Get(t)
	neo4jMu.Lock()
	t.Cleanup(neo4jMu.Unlock) // registered first, so released after t's processes are gone
	srv.Clean(t)
	return neo4jStoreOn(srv)
}

// neo4jStoreSharing returns the shared Neo4j for a test that reads and
// writes only its own vaults' projects, beside other such tests (a vault
// copied by copyVault, or written by the test, gets an identity, and so a
// project, of its own). It skips t when no Neo4j is available.
func neo4jStoreSharing(t *testing.T) store {
	t.Helper()
	srv := neo4jtest.Get(t)
	neo4jMu.RLock()
	t.Cleanup(neo4jMu.RUnlock)
	return neo4jStoreOn(srv)
}

func neo4jStoreOn(srv *neo4jtest.Server) store {
	// A Neo4j call's timeout is 30 s by default; on a machine loaded far
	// beyond CI (load 40 on 2 cores) a sync's first write of 13 notes ran
	// past it. The suite times no call: 2 minutes, as neo4jstore's tests.
	// A test about timeouts appends its own (the last value wins).
	env := []string{"VAULTGRAPH_NEO4J_URI=" + srv.URI, "VAULTGRAPH_NEO4J_TIMEOUT=2m"}
	if srv.User != "" { // an empty user means auth is off: the default neo4j/"" is accepted
		env = append(env, "VAULTGRAPH_NEO4J_USER="+srv.User, "VAULTGRAPH_NEO4J_PASSWORD="+srv.Password)
	}
	if srv.Database != "" {
		env = append(env, "VAULTGRAPH_NEO4J_DATABASE="+srv.Database)
	}
	return store{name: "neo4j", args: []string{"--store", "neo4j"}, env: env, neo4j: srv}
}

// forEachStore runs fn in one subtest per store, both in parallel with
// other tests: embedded, and Neo4j (with the database to itself:
// neo4jStore). A caller that needs both done wraps it in a t.Run
// (parallel subtests end before their parent's t.Run returns).
func forEachStore(t *testing.T, fn func(t *testing.T, st store)) {
	forEachStoreOf(t, neo4jStore, fn)
}

// forEachStoreSharing is forEachStore for a test that touches only its own
// vaults' projects: its Neo4j subtest runs beside other such tests
// (neo4jStoreSharing).
func forEachStoreSharing(t *testing.T, fn func(t *testing.T, st store)) {
	forEachStoreOf(t, neo4jStoreSharing, fn)
}

func forEachStoreOf(t *testing.T, neo4jOf func(*testing.T) store, fn func(t *testing.T, st store)) {
	t.Run("embedded", func(t *testing.T) {
		t.Parallel()
		fn(t, embeddedStore(t))
	})
	t.Run("neo4j", func(t *testing.T) {
		t.Parallel()
		fn(t, neo4jOf(t))
	})
}

// ---- vault --------------------------------------------------------------

// exampleVault is the repository's example vault, relative to this package.
const exampleVault = "../../examples/vault"

// copyVault copies the example vault into a temporary directory, adds the
// extra files (vault-relative slash paths), and returns its path.
func copyVault(t *testing.T, extra map[string]string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "vault")
	err := filepath.WalkDir(exampleVault, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(exampleVault, p)
		if err != nil {
			return err
		}
		if rel == ".vaultgraph" {
			// Not the example's identity: each copy becomes a project of
			// its own, so Neo4j tests of copies can share the database.
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copy the example vault: %v", err)
	}
	for rel, content := range extra {
		writeFile(t, dst, rel, content)
	}
	return dst
}

// writeFile writes content to the vault-relative slash path rel.
func writeFile(t *testing.T, vault, rel, content string) {
	t.Helper()
	p := filepath.Join(vault, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readFile returns the content of the vault-relative path rel, failing t
// when it cannot be read.
func readFile(t *testing.T, vault, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(vault, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("read %s: %v", rel, err)
	}
	return string(b)
}

// fileExists reports whether the vault-relative path rel exists.
func fileExists(vault, rel string) bool {
	_, err := os.Stat(filepath.Join(vault, filepath.FromSlash(rel)))
	return err == nil
}

// noteFileExists reports whether the note with this ID (its path
// lowercased: "notes/my note.md" for "notes/My Note.md") has its file in
// the vault.
func noteFileExists(vault, id string) bool { return noteFilePath(vault, id) != "" }

// noteFilePath is the path of the file of note id (IDs are the path in lower
// case; the file is named after the note's title), or "" when none exists.
func noteFilePath(vault, id string) string {
	found := ""
	_ = filepath.WalkDir(vault, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found != "" {
			return filepath.SkipAll
		}
		if rel, err := filepath.Rel(vault, p); err == nil && !d.IsDir() && strings.EqualFold(filepath.ToSlash(rel), id) {
			found = p
		}
		return nil
	})
	return found
}

// listFiles lists every file under dir as slash paths relative to dir.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

// ---- processes ----------------------------------------------------------

// baseEnv is the environment of every vaultgraph process: the test's own
// without any VAULTGRAPH_* variable, config and state looked up in
// directories of t's own (so a developer's config file cannot leak in),
// JSON logs (the helpers parse them), and no embedding provider (semantic
// search is not part of this suite; the expected tool list says so).
func baseEnv(t *testing.T) []string {
	t.Helper()
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "VAULTGRAPH_") || name == "XDG_CONFIG_HOME" || name == "XDG_STATE_HOME" {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"),
		"VAULTGRAPH_LOG_FORMAT=json",
		"VAULTGRAPH_EMBEDDING_PROVIDER=none",
	)
}

// processEnv is baseEnv with the store's variables and extra appended.
func processEnv(t *testing.T, st store, extra ...string) []string {
	t.Helper()
	return append(append(baseEnv(t), st.env...), extra...)
}

// syncBuffer is a bytes.Buffer safe for a writing process and a reading
// test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// proc is a vaultgraph process the test started.
type proc struct {
	cmd    *exec.Cmd
	stdout syncBuffer
	stderr syncBuffer
	done   chan struct{} // closed once the process has exited
	err    error         // cmd.Wait's result, set before done closes
}

// startProc starts the binary with args and env in a directory of t's
// own. When t ends the process is stopped (SIGTERM, then SIGKILL) and its
// stderr checked for data races.
func startProc(t *testing.T, env []string, stdin io.Reader, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Dir = t.TempDir()
	p.cmd.Stdin = stdin
	p.cmd.Stdout = &p.stdout
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start vaultgraph %s: %v", strings.Join(args, " "), err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stop()
		checkRaces(t, p.stderr.String())
	})
	return p
}

// runProc runs the binary to completion (bounded by readyTimeout) and
// returns its exit code, stdout and stderr.
func runProc(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	p := startProc(t, env, nil, args...)
	code, ok := p.exitCode(readyTimeout)
	if !ok {
		t.Fatalf("vaultgraph %s still running after %s; stderr:\n%s", strings.Join(args, " "), readyTimeout, p.stderr.String())
	}
	return code, p.stdout.String(), p.stderr.String()
}

// exitCode waits up to timeout for the process to exit and returns its
// exit code; ok is false when it is still running.
func (p *proc) exitCode(timeout time.Duration) (code int, ok bool) {
	select {
	case <-p.done:
	case <-time.After(timeout):
		return 0, false
	}
	if p.err == nil {
		return 0, true
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode(), true
	}
	return -1, true
}

// exited reports whether the process has exited.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signal sends sig to the process.
func (p *proc) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil && !p.exited() {
		t.Fatalf("signal %v: %v", sig, err)
	}
}

// stop ends the process if it still runs: SIGTERM, then SIGKILL.
func (p *proc) stop() {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	if _, ok := p.exitCode(2 * shutdownTimeout); ok {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// waitLog waits until the process logs a JSON line whose msg is msg and
// returns that line's fields. It fails t when the process exits first or
// the line does not come within timeout.
func (p *proc) waitLog(t *testing.T, msg string, timeout time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if fields, ok := findLog(p.stderr.String(), msg); ok {
			return fields
		}
		if p.exited() {
			code, _ := p.exitCode(0)
			t.Fatalf("vaultgraph exited (code %d) before logging %q; stderr:\n%s", code, msg, p.stderr.String())
		}
		if time.Now().After(deadline) {
			t.Fatalf("vaultgraph did not log %q within %s; stderr:\n%s", msg, timeout, p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// findLog returns the fields of the first JSON log line of stderr whose msg
// is msg.
func findLog(stderr, msg string) (map[string]any, bool) {
	for line := range strings.Lines(stderr) {
		var fields map[string]any
		if json.Unmarshal([]byte(line), &fields) == nil && fields["msg"] == msg {
			return fields, true
		}
	}
	return nil, false
}

// checkRaces fails t when a race-enabled binary reported a data race.
func checkRaces(t *testing.T, stderr string) {
	t.Helper()
	if i := strings.Index(stderr, "WARNING: DATA RACE"); i >= 0 {
		t.Errorf("the binary reported a data race:\n%s", stderr[i:])
	}
}

// ---- servers and clients ------------------------------------------------

// httpServer is a running "vaultgraph serve --http".
type httpServer struct {
	*proc
	addr string // host:port it listens on
}

// url is the server's MCP endpoint.
func (h *httpServer) url() string { return "http://" + h.addr + "/mcp" }

// startHTTP runs "vaultgraph serve --http addr" on vault with st and the
// tokens of tokenEnv, and waits until it listens. addr "127.0.0.1:0" lets
// the server choose a port; the one it chose is read from its log.
func startHTTP(t *testing.T, st store, vault, addr string, extraArgs ...string) *httpServer {
	t.Helper()
	args := append([]string{"serve", "--vault", vault, "--http", addr}, st.args...)
	args = append(args, extraArgs...)
	p := startProc(t, processEnv(t, st, tokenEnv), nil, args...)
	fields := p.waitLog(t, "serving MCP over HTTP", readyTimeout)
	got, _ := fields["addr"].(string)
	if got == "" {
		t.Fatalf("the serving log line has no addr: %v", fields)
	}
	h := &httpServer{proc: p, addr: got}
	h.waitReady(t)
	return h
}

// waitReady waits until /readyz answers 200: the first sync is done (serve
// answers MCP from the moment its store is open, while the sync runs).
func (h *httpServer) waitReady(t *testing.T) {
	t.Helper()
	ready := eventually(readyTimeout, func() bool {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+h.addr+"/readyz", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	if !ready {
		t.Fatalf("/readyz did not answer 200 within %s; stderr:\n%s", readyTimeout, h.stderr.String())
	}
}

// httpClient returns a started mcp-go streamable HTTP client of url that
// sends token ("" for none). It is not initialized.
func httpClient(t *testing.T, url, token string, copts ...client.ClientOption) *client.Client {
	t.Helper()
	var opts []transport.StreamableHTTPCOption
	if token != "" {
		opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	}
	tr, err := transport.NewStreamableHTTP(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, copts...)
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	return c
}

// stdioProcess is a vaultgraph process spawned by an mcp-go stdio client.
type stdioProcess struct {
	stderr syncBuffer
	proc   *os.Process
}

// stacks makes the process print every goroutine's stack (SIGQUIT: the Go
// runtime's dump, after which it exits) and returns its stderr once the
// dump is there, for a test that found it stuck.
func (sp *stdioProcess) stacks() string {
	_ = sp.proc.Signal(syscall.SIGQUIT)
	eventually(30*time.Second, func() bool { return strings.Contains(sp.stderr.String(), "\ngoroutine ") })
	return sp.stderr.String()
}

// stdioClient spawns "vaultgraph args..." under an mcp-go stdio client
// (not initialized), in a directory of t's own with exactly env. When t
// ends the client closes the process's stdin and the process must exit
// with status 0.
func stdioClient(t *testing.T, env []string, args []string, copts ...client.ClientOption) (*client.Client, *stdioProcess) {
	t.Helper()
	sp := &stdioProcess{}
	// The process is spawned here, not by mcp-go's stdio transport, so
	// that the test itself ends the input and waits for the exit: mcp-go's
	// Close sends SIGTERM 2 s after closing stdin, which on a loaded
	// machine turned a clean exit at the end of input into a signalled
	// one, and a timed check around it failed a correct binary.
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// No context: the process must outlive t.Context, which is cancelled
	// before the cleanup that checks its exit status.
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Dir = t.TempDir()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, &sp.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("spawn vaultgraph %s: %v", strings.Join(args, " "), err)
	}
	sp.proc = cmd.Process
	_ = inR.Close()
	_ = outW.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	c := client.NewClient(transport.NewIO(outR, inW, nil), copts...)
	if err := c.Start(context.Background()); err != nil {
		t.Fatalf("start a client of vaultgraph %s: %v", strings.Join(args, " "), err)
	}
	t.Cleanup(func() {
		start := time.Now()
		_ = inW.Close() // the end of its input: it must exit, with status 0, by itself
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("vaultgraph %s did not exit cleanly at the end of its stdin: %v; stderr:\n%s", args[0], err, sp.stderr.String())
			} else if d := time.Since(start); d > time.Second {
				t.Logf("vaultgraph %s took %s to exit at the end of its stdin", args[0], d.Round(time.Millisecond))
			}
		case <-time.After(shutdownTimeout):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("vaultgraph %s still running %s after the end of its stdin; stderr:\n%s", args[0], shutdownTimeout, sp.stderr.String())
		}
		_ = c.Close()
		_ = outR.Close()
		checkRaces(t, sp.stderr.String())
	})
	return c, sp
}

// startStdio spawns "vaultgraph serve" on vault with st under an mcp-go
// stdio client and initializes it.
func startStdio(t *testing.T, st store, vault string, copts ...client.ClientOption) *client.Client {
	t.Helper()
	args := append([]string{"serve", "--vault", vault}, st.args...)
	c, _ := stdioClient(t, processEnv(t, st), args, copts...)
	initialize(t, c)
	waitSynced(t, c)
	return c
}

// waitSynced waits until the server's first sync is done. serve answers at
// once and syncs in the background; until the sync ends, reads carry a
// notice and writes wait for it (at most 20 s, then a provider error), so
// a test that checks a call's warnings or writes at once would depend on
// how fast the machine syncs (TestEntityTools failed that way at load 29,
// its first sync on Neo4j taking over 39 s). A read with a progress token
// waits for the sync (at most 15 s at a time); one that still carries the
// notice is sent again. A server without get_node has nothing to wait for.
// Tests of the first sync itself (start_test.go) do not call it.
func waitSynced(t *testing.T, c *client.Client) {
	t.Helper()
	if !eventually(readyTimeout, func() bool {
		ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
		defer cancel()
		var req mcp.CallToolRequest
		req.Params.Name = "get_node"
		req.Params.Arguments = map[string]any{"id": "no/such/note.md"}
		req.Params.Meta = &mcp.Meta{ProgressToken: "first-sync"}
		res, err := c.CallTool(ctx, req)
		if err != nil {
			return strings.Contains(err.Error(), "tool not found") // no get_node here
		}
		for _, content := range res.Content {
			if tc, ok := mcp.AsTextContent(content); ok && strings.Contains(tc.Text, "still syncing") {
				return false
			}
		}
		return true
	}) {
		t.Fatalf("the first sync did not end within %s", readyTimeout)
	}
}

// transports are the ways a client reaches "vaultgraph serve".
var transports = []string{"stdio", "http"}

// connect starts "vaultgraph serve" on vault with st over the named
// transport and returns an initialized client with full access.
func connect(t *testing.T, st store, vault, transportName string) *client.Client {
	t.Helper()
	switch transportName {
	case "stdio":
		return startStdio(t, st, vault)
	case "http":
		h := startHTTP(t, st, vault, "127.0.0.1:0")
		c := httpClient(t, h.url(), rwToken)
		initialize(t, c)
		waitSynced(t, c)
		return c
	}
	t.Fatalf("unknown transport %q", transportName)
	return nil
}

// forEachTarget runs fn once per store and transport, each in a subtest
// with a fresh copy of the example vault plus extra files.
func forEachTarget(t *testing.T, extra map[string]string, fn func(t *testing.T, c *client.Client, vault string)) {
	forEachStoreSharing(t, func(t *testing.T, st store) {
		for _, tr := range transports {
			t.Run(tr, func(t *testing.T) {
				vault := copyVault(t, extra) // a project of its own

				fn(t, connect(t, st, vault, tr), vault)
			})
		}
	})
}

func initRequest() mcp.InitializeRequest {
	var req mcp.InitializeRequest
	req.Params.ClientInfo = mcp.Implementation{Name: "vaultgraph-e2e", Version: "1"}
	return req
}

// initialize runs the MCP handshake and returns the server's answer.
func initialize(t *testing.T, c *client.Client) *mcp.InitializeResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
	defer cancel()
	res, err := c.Initialize(ctx, initRequest())
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return res
}

// legacyProtocol keeps a client on the initialize handshake with sessions
// (protocol 2025-11-25), as clients released before 2026-07-28 do.
func legacyProtocol() client.ClientOption {
	return client.WithProtocolVersion(mcp.ProtocolVersion20251125)
}

// listTools returns the tools the server lists to c.
func listTools(t *testing.T, c *client.Client) []mcp.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
	defer cancel()
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	return res.Tools
}

// toolNames returns the sorted names of tools.
func toolNames(tools []mcp.Tool) []string {
	names := make([]string, 0, len(tools))
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// ---- tool calls ---------------------------------------------------------

// reply is a tool's answer as a client sees it.
type reply struct {
	isError  bool
	text     string   // the first text content: the answer's JSON
	warnings []string // _warnings, from the object or from a later content
}

// callTool calls the tool name with args through c; a protocol error
// fails t.
func callTool(t *testing.T, c *client.Client, name string, args any) reply {
	t.Helper()
	r, err := tryCall(t, c, name, args)
	if err != nil {
		t.Fatalf("call %s %v: %v", name, args, err)
	}
	return r
}

// tryCall is callTool returning the protocol error instead.
func tryCall(t *testing.T, c *client.Client, name string, args any) (reply, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return reply{}, err
	}
	return toReply(t, name, res), nil
}

// toReply reads a result: the first content is the answer; _warnings sit
// in it when it is an object, else in a second {"_warnings": [...]}.
func toReply(t *testing.T, name string, res *mcp.CallToolResult) reply {
	t.Helper()
	r := reply{isError: res.IsError}
	for i, content := range res.Content {
		tc, ok := mcp.AsTextContent(content)
		if !ok {
			t.Fatalf("%s: content %d is %T, want text", name, i, content)
		}
		if i == 0 {
			r.text = tc.Text
		}
		var w struct {
			Warnings []string `json:"_warnings"`
		}
		if strings.HasPrefix(strings.TrimSpace(tc.Text), "{") && json.Unmarshal([]byte(tc.Text), &w) == nil {
			r.warnings = append(r.warnings, w.Warnings...)
		}
	}
	if len(res.Content) == 0 {
		t.Fatalf("%s: empty result", name)
	}
	return r
}

// code returns the error code of an error reply, failing t for a success
// or an error that is not the spec's {error: {code, message}}.
func (r reply) code(t *testing.T) string {
	t.Helper()
	if !r.isError {
		t.Fatalf("want an error result, got %.300s", r.text)
	}
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.text), &e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("error result %.300q is not {error: {code, message}}", r.text)
	}
	return e.Error.Code
}

// decode unmarshals a successful reply's answer into v.
func (r reply) decode(t *testing.T, v any) {
	t.Helper()
	if r.isError {
		t.Fatalf("unexpected error result: %.300s", r.text)
	}
	if err := json.Unmarshal([]byte(r.text), v); err != nil {
		t.Fatalf("answer %.300q: %v", r.text, err)
	}
}

// wantCode fails t unless calling name with args answers the error code.
func wantCode(t *testing.T, c *client.Client, code, name string, args any) {
	t.Helper()
	if got := callTool(t, c, name, args).code(t); got != code {
		t.Errorf("%s %v: code %s, want %s", name, args, got, code)
	}
}

// wantText fails t unless calling name with args answers exactly text.
func wantText(t *testing.T, c *client.Client, text, name string, args any) {
	t.Helper()
	r := callTool(t, c, name, args)
	if r.isError || r.text != text {
		t.Errorf("%s %v = %.300s (error %v), want %s", name, args, r.text, r.isError, text)
	}
}

// link, node and the other types are the spec's response shapes.
type link struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

type node struct {
	ID            string     `json:"id"`
	Title         string     `json:"title"`
	Content       string     `json:"content"`
	Tags          []string   `json:"tags"`
	Links         []link     `json:"links"`
	IncomingCount *int       `json:"incomingCount"`
	OutgoingCount *int       `json:"outgoingCount"`
	Neighbors     []neighbor `json:"neighbors"`
	Renamed       *renamed   `json:"renamed"`
	Relinked      []relinked `json:"relinked"` // create_node's
}

// relinked is a note a write rewrote so that its links keep their
// meaning.
type relinked struct {
	ID    string `json:"id"`
	Links int    `json:"links"`
}

type neighbor struct {
	node
	Direction string `json:"direction"`
}

type renamed struct {
	From         string     `json:"from"`
	To           string     `json:"to"`
	FilesChanged int        `json:"filesChanged"`
	LinksChanged int        `json:"linksChanged"`
	Relinked     []relinked `json:"relinked"`
}

type hub struct {
	ID    string  `json:"id"`
	Title string  `json:"title"`
	Score float64 `json:"score"`
}

type path struct {
	Path   []string `json:"path"`
	Length int      `json:"length"`
}

// getNode calls get_node and returns the node, nil for a null answer.
func getNode(t *testing.T, c *client.Client, args map[string]any) *node {
	t.Helper()
	r := callTool(t, c, "get_node", args)
	if r.text == "null" && !r.isError {
		return nil
	}
	var n node
	r.decode(t, &n)
	return &n
}

// ids returns the IDs of nodes, in order.
func ids[T interface{ nodeID() string }](nodes []T) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.nodeID()
	}
	return out
}

func (n node) nodeID() string { return n.ID }
func (l link) nodeID() string { return l.ID }
func (h hub) nodeID() string  { return h.ID }

// sorted returns a sorted copy of s.
func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// eventually calls check every 100 ms until it reports true or timeout
// passes, and reports whether it did.
func eventually(timeout time.Duration, check func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if check() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// jsonLines splits out into lines and decodes each as a JSON object,
// failing t on a line that is not one.
func jsonLines(t *testing.T, out string) []map[string]json.RawMessage {
	t.Helper()
	var msgs []map[string]json.RawMessage
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var msg map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			t.Fatalf("stdout line is not a JSON object: %.300q", sc.Text())
		}
		msgs = append(msgs, msg)
	}
	return msgs
}
