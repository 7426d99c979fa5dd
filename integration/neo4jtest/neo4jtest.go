// Package neo4jtest hands Go tests a live Neo4j 5.26 server.
//
// Get tries, in order, and remembers the outcome for the whole test binary:
//
//  1. env: NEO4J_URI (with NEO4J_USER, NEO4J_PASSWORD and optional
//     NEO4J_DATABASE) names an existing server. An empty NEO4J_USER means
//     NoAuth.
//  2. testcontainers: image neo4j:5.26-community, when a Docker engine
//     answers a cheap health check within a few seconds.
//  3. local: scripts/neo4j-local/neo4j-local.sh (an embedded Neo4j from Maven
//     Central jars, no Docker) when java and mvn are on PATH. It is started
//     once per test binary on a free loopback port with a temporary data
//     directory. The first run downloads ~130 MB into ~/.m2, so startup
//     waits up to 8 minutes.
//  4. otherwise the test is skipped with the reason; with
//     VAULTGRAPH_REQUIRE_NEO4J=1 (CI) it fails instead.
//
// A backend that is configured or found but does not work (unreachable
// NEO4J_URI, launcher that fails to start) fails the test rather than
// skipping it, so a broken setup is never mistaken for "no Neo4j here". A
// failing Docker start is the exception: it only logs and falls through to
// the local launcher.
//
// Packages that use Get should route TestMain through Main so that a server
// this package started is stopped when the tests finish:
//
//	func TestMain(m *testing.M) { os.Exit(neo4jtest.Main(m)) }
//
// Even without Main (or when the test binary panics, times out or is killed)
// the local launcher does not outlive the binary: it watches a stdin pipe
// whose write end only this process holds and shuts Neo4j down on EOF.
//
// The server is shared by all tests of the binary. Tests should call Clean
// before relying on an empty graph, and tests that use Stop/Start must not
// run in parallel with other Neo4j tests.
//
// Auth: the local launcher and the testcontainers backend run with auth
// disabled, so Server.User is empty and Driver uses NoAuth. A server with auth
// disabled also accepts basic-auth tokens with any credentials, so code that
// always sends neo4j/<password> works against it too.
package neo4jtest

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/testcontainers/testcontainers-go"
	tcneo4j "github.com/testcontainers/testcontainers-go/modules/neo4j"
)

// Sources reported in Server.Source.
const (
	SourceEnv            = "env"
	SourceTestcontainers = "testcontainers"
	SourceLocal          = "local"
)

const (
	// ContainerImage is the image used when Docker is available. Community
	// edition of the 5.26 LTS line, matching scripts/neo4j-local/NEO4J_VERSION.
	ContainerImage = "neo4j:5.26-community"

	// RequireEnv turns a would-be skip into a failure (set it in CI).
	RequireEnv = "VAULTGRAPH_REQUIRE_NEO4J"

	// First launcher run resolves ~130 MB of jars from Maven Central.
	localStartTimeout = 8 * time.Minute
	// Restart after Stop: jars and classes are cached, only Neo4j boots.
	localRestartTimeout = 3 * time.Minute
	// Clean shutdown normally takes well under a second; past this the
	// process group is killed.
	localStopTimeout   = 60 * time.Second
	dockerCheckTimeout = 5 * time.Second
	containerTimeout   = 5 * time.Minute
	connectTimeout     = 60 * time.Second
)

// Server describes a live Neo4j. Fields are read-only for callers.
type Server struct {
	URI      string // bolt:// or neo4j:// URI
	User     string // empty means NoAuth
	Password string
	Database string // empty means the server's default database
	Source   string // SourceEnv, SourceTestcontainers or SourceLocal
	Version  string // e.g. "5.26.30", from CALL dbms.components()

	local *localServer // non-nil for SourceLocal
}

var (
	acquireOnce sync.Once
	shared      *Server
	sharedErr   error
	sharedSkip  bool // sharedErr means "no backend available" rather than "backend broken"

	// stopShared releases whatever acquire started (container or launcher).
	stopMu     sync.Mutex
	stopShared func()
)

// Get returns the shared live server, starting one on first use. When no
// Neo4j is available it skips t (or fails it under VAULTGRAPH_REQUIRE_NEO4J=1);
// when a backend is present but broken it fails t.
func Get(t testing.TB) *Server {
	t.Helper()
	acquireOnce.Do(acquireShared)
	if sharedErr != nil {
		if sharedSkip && !required() {
			t.Skipf("neo4j unavailable: %v", sharedErr)
		}
		if sharedSkip {
			t.Fatalf("neo4j unavailable and %s is set: %v", RequireEnv, sharedErr)
		}
		t.Fatalf("neo4j: %v", sharedErr)
	}
	t.Logf("neo4j: %s %s version %s", shared.Source, shared.URI, shared.Version)
	return shared
}

func acquireShared() {
	shared, sharedSkip, sharedErr = acquire()
	if sharedErr == nil {
		// Once per binary, so CI logs show which Neo4j ran even without -v.
		fmt.Fprintf(os.Stderr, "neo4j: %s %s version %s\n", shared.Source, shared.URI, shared.Version)
	}
}

// Warm starts acquiring the shared server in the background, so that its
// start (a JVM: half a minute on an idle 2-core machine, minutes on a
// loaded one) overlaps other work (building a binary, the tests that need
// no Neo4j) instead of delaying the first test that calls Get. Get waits
// for it. Warm does nothing when -test.run selects tests (they may need no
// Neo4j); call it after flag.Parse. Main calls it.
func Warm() {
	if f := flag.Lookup("test.run"); !flag.Parsed() || f != nil && f.Value.String() != "" {
		return
	}
	warmOnce.Do(func() { go acquireOnce.Do(acquireShared) })
}

var warmOnce sync.Once

// Main runs the tests, then stops a container or launcher that Get started.
// Use it from TestMain: os.Exit(neo4jtest.Main(m)). It warms the shared
// server first (Warm).
func Main(m *testing.M) int {
	if !flag.Parsed() {
		flag.Parse()
	}
	Warm()
	code := m.Run()
	acquireOnce.Do(func() {}) // a warm start still under way: wait for it, so it is stopped below
	stopMu.Lock()
	stop := stopShared
	stopShared = nil
	stopMu.Unlock()
	if stop != nil {
		stop()
	}
	return code
}

// DefaultParallel sets go test's -parallel to n unless the command line
// set it. go test's default is GOMAXPROCS (2 on CI's machine), but a suite
// against Neo4j mostly waits, for the server and for processes: with two
// slots, two such waits leave the machine idle. Call it after flag.Parse.
func DefaultParallel(n int) error {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if set {
		return nil
	}
	if err := flag.Set("test.parallel", strconv.Itoa(n)); err != nil {
		return fmt.Errorf("-parallel: %w", err)
	}
	return nil
}

// Driver opens a driver for s, closed when t ends.
func (s *Server) Driver(t testing.TB) neo4j.DriverWithContext {
	t.Helper()
	d, err := s.newDriver()
	if err != nil {
		t.Fatalf("neo4j: driver for %s: %v", s.URI, err)
	}
	t.Cleanup(func() { _ = d.Close(context.Background()) })
	return d
}

// WipeConsentEnv must be set to a true value before Clean empties a database
// reached through NEO4J_URI: that is the user's own server, perhaps holding
// real data, and the tests delete every node in it.
const WipeConsentEnv = "NEO4J_TEST_WIPE_OK"

// Clean deletes all nodes and relationships in s.Database. Indexes and
// constraints are left alone. On a server named by NEO4J_URI it fails t
// unless WipeConsentEnv says the database is disposable.
func (s *Server) Clean(t testing.TB) {
	t.Helper()
	if s.Source == SourceEnv {
		if ok, _ := strconv.ParseBool(os.Getenv(WipeConsentEnv)); !ok {
			t.Fatalf("neo4j: this test empties database %q of %s (NEO4J_URI) and would delete every node in it; "+
				"if that database is disposable set %s=1, otherwise unset NEO4J_URI so the test starts a Neo4j of its own",
				s.databaseName(), s.URI, WipeConsentEnv)
		}
	}
	d := s.Driver(t)
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	// In batches, so a database left large (NEO4J_URI shared with a
	// benchmark) does not exceed Neo4j's transaction memory. CALL ... IN
	// TRANSACTIONS needs an auto-commit transaction: session.Run.
	sess := d.NewSession(ctx, neo4j.SessionConfig{DatabaseName: s.Database})
	defer func() { _ = sess.Close(ctx) }()
	res, err := sess.Run(ctx, "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS", nil)
	if err == nil {
		_, err = res.Consume(ctx)
	}
	if err != nil {
		t.Fatalf("neo4j: clean: %v", err)
	}
}

// Stop shuts the server down (cleanly, SIGTERM) so a test can observe the
// failure of an unavailable database. Only the local launcher supports it;
// other sources skip t. If t ends while the server is still stopped, it is
// started again so later tests are unaffected.
func (s *Server) Stop(t testing.TB) error {
	t.Helper()
	if s.local == nil {
		t.Skipf("neo4j: Stop needs the local launcher, server source is %q", s.Source)
	}
	t.Cleanup(func() {
		if !s.local.running() {
			if err := s.local.start(localRestartTimeout); err != nil {
				t.Errorf("neo4j: restart after test left server stopped: %v", err)
			}
		}
	})
	return s.local.stop()
}

// Start restarts a server stopped with Stop on the same port and data
// directory, so previously committed data is still there, and waits until
// Bolt answers. It is a no-op if the server is running.
func (s *Server) Start(t testing.TB) error {
	t.Helper()
	if s.local == nil {
		t.Skipf("neo4j: Start needs the local launcher, server source is %q", s.Source)
	}
	if s.local.running() {
		return nil
	}
	return s.local.start(localRestartTimeout)
}

// Freeze stops the server's processes with SIGSTOP: connections stay open
// and the port accepts new ones, but nothing answers, as with a server
// stuck in a GC pause or behind a network that drops packets. Only the
// local launcher supports it; other sources skip t. Thaw (or the end of
// t) resumes it.
func (s *Server) Freeze(t testing.TB) error {
	t.Helper()
	if s.local == nil {
		t.Skipf("neo4j: Freeze needs the local launcher, server source is %q", s.Source)
	}
	t.Cleanup(func() { _ = s.local.signal(syscall.SIGCONT) })
	return s.local.signal(syscall.SIGSTOP)
}

// Thaw resumes a server stopped with Freeze (SIGCONT).
func (s *Server) Thaw(t testing.TB) error {
	t.Helper()
	if s.local == nil {
		t.Skipf("neo4j: Thaw needs the local launcher, server source is %q", s.Source)
	}
	return s.local.signal(syscall.SIGCONT)
}

func (s *Server) auth() neo4j.AuthToken {
	if s.User == "" {
		return neo4j.NoAuth()
	}
	return neo4j.BasicAuth(s.User, s.Password, "")
}

func (s *Server) newDriver() (neo4j.DriverWithContext, error) {
	return neo4j.NewDriverWithContext(s.URI, s.auth())
}

func (s *Server) queryOpts() []neo4j.ExecuteQueryConfigurationOption {
	if s.Database == "" {
		return nil
	}
	return []neo4j.ExecuteQueryConfigurationOption{neo4j.ExecuteQueryWithDatabase(s.Database)}
}

// probe connects and reads the server version, retrying until timeout
// because a just-started server may still be opening its databases.
func (s *Server) probe(timeout time.Duration) error {
	d, err := s.newDriver()
	if err != nil {
		return err
	}
	defer func() { _ = d.Close(context.Background()) }()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		res, err := neo4j.ExecuteQuery(ctx, d,
			"CALL dbms.components() YIELD versions RETURN versions[0] AS v", nil,
			neo4j.EagerResultTransformer, s.queryOpts()...)
		if err == nil && len(res.Records) > 0 {
			if v, ok := res.Records[0].Get("v"); ok {
				s.Version = fmt.Sprint(v)
				return nil
			}
		}
		if err == nil {
			err = errors.New("dbms.components() returned no version")
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", s.URI, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func required() bool {
	v := strings.TrimSpace(os.Getenv(RequireEnv))
	if v == "" {
		return false
	}
	b, err := strconv.ParseBool(v)
	return err != nil || b // any non-boolean value also counts as "required"
}

// acquire picks a backend. skip reports that nothing is available (as opposed
// to a backend that exists but is broken).
func acquire() (srv *Server, skip bool, err error) {
	if uri := os.Getenv("NEO4J_URI"); uri != "" {
		srv = &Server{
			URI:      uri,
			User:     os.Getenv("NEO4J_USER"),
			Password: os.Getenv("NEO4J_PASSWORD"),
			Database: os.Getenv("NEO4J_DATABASE"),
			Source:   SourceEnv,
		}
		if err := srv.probe(connectTimeout); err != nil {
			return nil, false, fmt.Errorf("NEO4J_URI is set but unusable: %w", err)
		}
		return srv, false, nil
	}

	var reasons []string
	if ok, why := dockerAvailable(); ok {
		srv, err := startContainer()
		if err == nil {
			return srv, false, nil
		}
		fmt.Fprintf(os.Stderr, "neo4j: testcontainers failed, trying local launcher: %v\n", err)
		reasons = append(reasons, "testcontainers: "+err.Error())
	} else {
		reasons = append(reasons, "no Docker engine ("+why+")")
	}

	script, why := localScript()
	if script == "" {
		reasons = append(reasons, "no local launcher ("+why+")")
		return nil, true, errors.New(strings.Join(reasons, "; ") + "; set NEO4J_URI to use an existing server")
	}
	srv, err = startLocal(script)
	if err != nil {
		return nil, false, fmt.Errorf("local launcher: %w", err)
	}
	return srv, false, nil
}

// DockerAvailable reports whether a Docker engine answers testcontainers,
// and when not, why (one line), within a few seconds and without panicking.
// Other suites that need an engine skip with this reason.
func DockerAvailable() (ok bool, reason string) { return dockerAvailable() }

// dockerAvailable asks testcontainers whether an engine answers. The check
// runs in a goroutine with a deadline and recovers panics: testcontainers'
// host discovery is not context-aware everywhere, and a half-configured
// Docker (CLI but no engine, stale DOCKER_HOST) must not hang or crash tests.
func dockerAvailable() (bool, string) {
	result := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				result <- fmt.Errorf("panic: %v", r)
			}
		}()
		p, err := testcontainers.NewDockerProvider()
		if err != nil {
			result <- err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), dockerCheckTimeout)
		defer cancel()
		result <- p.Health(ctx) // also closes p
	}()
	select {
	case err := <-result:
		if err != nil {
			return false, firstLine(err.Error())
		}
		return true, ""
	case <-time.After(dockerCheckTimeout + time.Second):
		return false, "docker check timed out"
	}
}

func startContainer() (*Server, error) {
	ctx, cancel := context.WithTimeout(context.Background(), containerTimeout)
	defer cancel()
	c, err := tcneo4j.Run(ctx, ContainerImage,
		tcneo4j.WithoutAuthentication(),
		tcneo4j.WithNeo4jSetting("server.memory.pagecache.size", "256M"),
		tcneo4j.WithNeo4jSetting("server.memory.heap.max_size", "512M"),
	)
	terminate := func() {
		if c != nil {
			tctx, tcancel := context.WithTimeout(context.Background(), time.Minute)
			defer tcancel()
			_ = c.Terminate(tctx)
		}
	}
	if err != nil {
		terminate()
		return nil, err
	}
	uri, err := c.BoltUrl(ctx)
	if err != nil {
		terminate()
		return nil, err
	}
	srv := &Server{URI: uri, Source: SourceTestcontainers}
	if err := srv.probe(connectTimeout); err != nil {
		terminate()
		return nil, err
	}
	setStop(terminate)
	return srv, nil
}

// localScript finds scripts/neo4j-local/neo4j-local.sh under the module root
// (the nearest directory with go.mod above the working directory, which for
// `go test` is the package directory) and checks its prerequisites.
func localScript() (string, string) {
	for _, tool := range []string{"java", "mvn", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", tool + " not on PATH"
		}
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err.Error()
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "no go.mod above the working directory"
		}
		dir = parent
	}
	script := filepath.Join(dir, "scripts", "neo4j-local", "neo4j-local.sh")
	if _, err := os.Stat(script); err != nil {
		return "", err.Error()
	}
	return script, ""
}

func startLocal(script string) (*Server, error) {
	dir, err := os.MkdirTemp("", "neo4jtest-")
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	l := &localServer{script: script, dir: dir, port: port}
	if err := l.start(localStartTimeout); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	srv := &Server{URI: l.uri(), Source: SourceLocal, local: l}
	if err := srv.probe(connectTimeout); err != nil {
		_ = l.stop()
		_ = os.RemoveAll(dir)
		return nil, err
	}
	setStop(func() {
		if err := l.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "neo4j: stopping local launcher: %v\n", err)
		}
		_ = os.RemoveAll(dir)
	})
	return srv, nil
}

// LocalOptions configure a server of StartLocal.
type LocalOptions struct {
	// Password turns authentication on: user "neo4j" with this password
	// (8 characters or more).
	Password string
	// TLSDir makes Bolt accept TLS (plain connections still work) with
	// TLSDir/private.key (PKCS#8 PEM) and TLSDir/public.crt.
	TLSDir string
}

// StartLocal starts a Neo4j of its own for t with the local launcher
// (not the shared server: for a setting the others must not see, such as
// authentication or TLS), stopped when t ends. It skips t when the
// launcher cannot run here (fails it under VAULTGRAPH_REQUIRE_NEO4J=1).
// Each costs a JVM start: use sparingly.
func StartLocal(t testing.TB, opts LocalOptions) *Server {
	t.Helper()
	script, why := localScript()
	if script == "" {
		if required() {
			t.Fatalf("neo4j: no local launcher (%s) and %s is set", why, RequireEnv)
		}
		t.Skipf("neo4j: no local launcher: %s", why)
	}
	dir, err := os.MkdirTemp("", "neo4jtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	l := &localServer{script: script, dir: dir, port: port}
	srv := &Server{URI: l.uri(), Source: SourceLocal, local: l}
	if opts.Password != "" {
		l.extra = append(l.extra, "--password", opts.Password)
		srv.User, srv.Password = "neo4j", opts.Password
	}
	if opts.TLSDir != "" {
		l.extra = append(l.extra, "--tls-dir", opts.TLSDir)
	}
	if err := l.start(localStartTimeout); err != nil {
		t.Fatalf("neo4j: local launcher: %v", err)
	}
	t.Cleanup(func() {
		if err := l.stop(); err != nil {
			t.Errorf("neo4j: stopping local launcher: %v", err)
		}
	})
	if err := srv.probe(connectTimeout); err != nil {
		t.Fatalf("neo4j: %v", err)
	}
	return srv
}

func setStop(f func()) {
	stopMu.Lock()
	stopShared = f
	stopMu.Unlock()
}

// freePort asks the kernel for an unused loopback port. Choosing it here
// rather than in the launcher lets a restart reuse the same port (and URI).
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// localServer is one neo4j-local.sh process tree in its own process group.
type localServer struct {
	script string
	dir    string // temp dir: home/ is the Neo4j home, launcher.log the script's stderr
	port   int
	extra  []string // launcher options (--password, --tls-dir)

	mu    sync.Mutex
	cmd   *exec.Cmd
	stdin io.WriteCloser // held open: EOF tells the launcher we are gone
	done  chan struct{}  // closed when cmd has exited
}

func (l *localServer) uri() string { return fmt.Sprintf("bolt://127.0.0.1:%d", l.port) }

func (l *localServer) running() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cmd == nil {
		return false
	}
	select {
	case <-l.done:
		return false
	default:
		return true
	}
}

func (l *localServer) logPath() string { return filepath.Join(l.dir, "launcher.log") }

func (l *localServer) start(timeout time.Duration) error {
	l.mu.Lock()
	defer l.mu.Unlock()

	logf, err := os.OpenFile(l.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command("bash", append([]string{l.script,
		"--data", filepath.Join(l.dir, "home"),
		"--port", strconv.Itoa(l.port),
		"--watch-stdin"}, l.extra...)...)
	// Own process group so stop can signal bash, Maven and the JVM together,
	// and so a Ctrl-C aimed at `go test` does not race our clean shutdown.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Launcher status lines and Maven errors: keep a copy for error messages
	// and show them on stderr (never stdout) for CI logs.
	cmd.Stderr = io.MultiWriter(logf, os.Stderr)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		logf.Close()
		return err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		logf.Close()
		return err
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start %s: %w", l.script, err)
	}

	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, "NEO4J_READY ") {
				select {
				case ready <- line:
				default:
				}
			}
		}
		// Keep draining so the JVM never blocks on a full pipe.
		_, _ = io.Copy(io.Discard, stdout)
	}()
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait() // also closes the pipes
		logf.Close()
		close(done)
	}()
	l.cmd, l.stdin, l.done = cmd, stdin, done

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case line := <-ready:
		want := l.uri()
		if !strings.Contains(line, want+" ") {
			l.killLocked()
			return fmt.Errorf("launcher reported %q, expected %s", line, want)
		}
		return nil
	case <-done:
		return fmt.Errorf("launcher exited (%s) before ready; stderr:\n%s\nNeo4j logs: %s",
			cmd.ProcessState, tail(l.logPath(), 3000), filepath.Join(l.dir, "home", "logs"))
	case <-timer.C:
		l.killLocked()
		return fmt.Errorf("launcher not ready after %s; stderr:\n%s", timeout, tail(l.logPath(), 3000))
	}
}

func (l *localServer) stop() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cmd == nil {
		return nil
	}
	select {
	case <-l.done:
		return nil
	default:
	}
	// SIGTERM runs the JVM shutdown hook (clean Neo4j shutdown, store
	// checkpointed), so a later start on the same data is fast and intact.
	_ = syscall.Kill(-l.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-l.done:
		return nil
	case <-time.After(localStopTimeout):
		l.killLocked()
		return fmt.Errorf("launcher ignored SIGTERM for %s; killed", localStopTimeout)
	}
}

// signal sends sig to the launcher's process group (the JVM).
func (l *localServer) signal(sig syscall.Signal) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cmd == nil {
		return errors.New("neo4j: the local server is not running")
	}
	return syscall.Kill(-l.cmd.Process.Pid, sig)
}

// killLocked SIGKILLs the whole process group and waits for the exit.
func (l *localServer) killLocked() {
	_ = syscall.Kill(-l.cmd.Process.Pid, syscall.SIGKILL)
	_ = l.stdin.Close()
	<-l.done
}

func tail(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > n {
		_, _ = f.Seek(-n, io.SeekEnd)
	}
	b, _ := io.ReadAll(f)
	return string(b)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// databaseName is s.Database, or the server's default when it is empty.
func (s *Server) databaseName() string {
	if s.Database == "" {
		return "neo4j (the default)"
	}
	return s.Database
}
