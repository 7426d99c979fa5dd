//go:build linux

package owner

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/internal/otheruser"
)

// squatterEnv runs the test binary as the squatter of
// TestSquatterCannotReachOrBlockTheOwner (its value: a squatSpec).
const squatterEnv = "VAULTGRAPH_OWNER_SQUATTER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(squatterEnv); spec != "" {
		os.Exit(runSquatter(spec))
	}
	os.Exit(m.Run())
}

// squatSpec is what the squatter takes before the owner starts.
type squatSpec struct {
	Dirs   []string          // folders made with mode 0777
	Links  map[string]string // link → target
	Listen []string          // socket paths (0777) and abstract names (@...)
}

// squatReport is what the squatter says at its end.
type squatReport struct {
	Listening int   // sockets it bound
	Conns     int64 // connections it accepted
	Bytes     int64 // bytes it was sent
}

// runSquatter is another user's process: it makes the spec's folders,
// links and sockets, then answers "connect PATH" lines on stdin (dials
// PATH, sends a Hello, says how many bytes came back), and reports what
// its sockets got when stdin ends.
func runSquatter(spec string) int {
	var s squatSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		fmt.Fprintln(os.Stderr, "squatter:", err)
		return 2
	}
	for _, d := range s.Dirs {
		if err := os.MkdirAll(d, 0o777); err != nil {
			fmt.Fprintln(os.Stderr, "squatter:", err)
			return 2
		}
		_ = os.Chmod(d, 0o777)
	}
	for link, target := range s.Links {
		if err := os.Symlink(target, link); err != nil {
			fmt.Fprintln(os.Stderr, "squatter:", err)
			return 2
		}
	}
	var (
		rep  squatReport
		sink otheruser.Sink
	)
	for _, p := range s.Listen {
		ln, err := net.Listen("unix", p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "squatter: listen:", err)
			continue
		}
		if !strings.HasPrefix(p, "@") {
			_ = os.Chmod(p, 0o777)
		}
		rep.Listening++
		sink.Accept(ln)
	}
	fmt.Println("ready")
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		if path, ok := strings.CutPrefix(sc.Text(), "connect "); ok {
			fmt.Println(otheruser.DialLine(path, func(c net.Conn) error {
				return WriteLine(c, Hello{Protocol: Protocol, Kind: KindSync, PID: os.Getpid()})
			}))
		}
	}
	rep.Conns, rep.Bytes = sink.Counts()
	b, _ := json.Marshal(rep)
	fmt.Println(string(b))
	return 0
}

// Issue 43: a process of another user binds every name vaultgraph might
// use for the owner's socket before the owner starts: the old abstract
// name, the socket paths in the per-user temp folder and under a runtime
// folder, owner.sock in a state folder open to others; it makes the
// per-user temp folder its own (round 1) or a link to a folder of its own
// (round 2), and XDG_RUNTIME_DIR points at a folder of its. The owner
// must still start and be reached by its own user, its socket must be in
// a folder of its own, the squatter must be unable to reach it, and
// receive no byte from a dialler, even one sent to its socket by a lock
// file that names it.
//
// It runs as root (as CI does) and the squatter as uid 65534 (package
// otheruser); elsewhere it is skipped.
func TestSquatterCannotReachOrBlockTheOwner(t *testing.T) {
	base := shortTemp(t)
	mustChmod(t, base, 0o755)
	shared := func(name string) string { // like /tmp: anyone makes entries
		d := filepath.Join(base, name)
		mustMkdir(t, d)
		mustChmod(t, d, os.ModeSticky|0o777)
		return d
	}
	tmpDir, tmpLink, runBase := shared("t1"), shared("t2"), shared("r")
	private := filepath.Join(base, "p") // root's alone
	mustMkdir(t, private)
	longState := filepath.Join(private, strings.Repeat("a-long-state-folder-", 6))
	openParent := shared("o")
	openState := filepath.Join(openParent, "state") // a state folder open to others
	mustMkdir(t, openState)
	mustChmod(t, openState, 0o777)
	runtime := filepath.Join(runBase, "its") // XDG_RUNTIME_DIR, but the squatter's
	theirs := filepath.Join(runBase, "theirs")

	const root = "vaultgraph-0"
	spec := squatSpec{
		Dirs:  []string{filepath.Join(tmpDir, root), filepath.Join(runtime, "vaultgraph"), theirs},
		Links: map[string]string{filepath.Join(tmpLink, root): theirs},
	}
	for _, st := range []string{longState, openState} {
		sum := socketName(st)
		spec.Listen = append(spec.Listen,
			"@vaultgraph-"+strings.TrimSuffix(sum, ".sock"), // the old abstract name
			filepath.Join(tmpDir, root, sum),
			filepath.Join(theirs, sum),
			filepath.Join(runtime, "vaultgraph", sum))
	}
	spec.Listen = append(spec.Listen, filepath.Join(openState, SocketFile))
	js, _ := json.Marshal(spec)
	squatter := otheruser.Start(t, squatterEnv+"="+string(js))
	stdin, readLine := squatter.In, squatter.Line
	if l := readLine(); l != "ready" {
		t.Fatalf("squatter: %q", l)
	}

	t.Setenv("XDG_RUNTIME_DIR", runtime)
	for _, round := range []struct{ name, tmp string }{{"per-user folder taken", tmpDir}, {"per-user folder a link", tmpLink}} {
		t.Setenv("TMPDIR", round.tmp)
		for _, st := range []string{longState, openState} {
			l, err := TryLock(st)
			if err != nil {
				t.Fatal(err)
			}
			ln, err := l.Listen()
			if err != nil {
				t.Fatalf("%s, %s: the owner cannot listen: %v", round.name, st, err)
			}
			go serveHellos(ln)
			addr := ln.Addr().String()
			if err := checkPrivate(filepath.Dir(addr)); err != nil || strings.HasPrefix(addr, runtime) || strings.HasPrefix(addr, theirs) || strings.HasPrefix(addr, openState) {
				t.Fatalf("%s: the owner listens on %s (%v)", round.name, addr, err)
			}
			hello(t, st) // the owner's own user reaches it
			// The squatter cannot reach it.
			fmt.Fprintf(stdin, "connect %s\n", addr)
			if l := readLine(); !strings.HasPrefix(l, "refused:") {
				t.Fatalf("%s: the squatter reached the owner's socket: %s", round.name, l)
			}
			// Even with the folder and socket opened to it, the owner
			// closes its connection unread.
			mustChmod(t, filepath.Dir(addr), 0o777)
			mustChmod(t, addr, 0o777)
			fmt.Fprintf(stdin, "connect %s\n", addr)
			if l := readLine(); !strings.HasPrefix(l, "connected: read 0 bytes") {
				t.Fatalf("%s: the owner answered another user: %s", round.name, l)
			}
			mustChmod(t, filepath.Dir(addr), 0o700)
			_ = ln.Close()
			l.Release()
		}
	}

	// A lock file that names the squatter's socket: Dial refuses it
	// before sending a byte.
	lying := filepath.Join(private, "lying")
	mustMkdir(t, lying)
	if err := os.WriteFile(filepath.Join(lying, LockFile), fmt.Appendf(nil, "1\n%s\n", filepath.Join(tmpDir, root, socketName(longState))), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(lying, 5*time.Second); !errors.Is(err, ErrNotYours) {
		t.Fatalf("Dial of the squatter's socket: %v, want ErrNotYours", err)
	}

	_ = stdin.Close()
	var rep squatReport
	if err := json.Unmarshal([]byte(readLine()), &rep); err != nil {
		t.Fatal(err)
	}
	t.Logf("squatter (uid 65534): %d sockets bound, %d connections from the owner's user, %d bytes received", rep.Listening, rep.Conns, rep.Bytes)
	if rep.Listening != len(spec.Listen) {
		t.Fatalf("the squatter bound %d of its %d sockets: the test did not squat every name", rep.Listening, len(spec.Listen))
	}
	if rep.Bytes != 0 || rep.Conns > 1 {
		t.Fatalf("the squatter got %d connections and %d bytes, want at most the refused Dial's connection and no byte", rep.Conns, rep.Bytes)
	}
}

func mustMkdir(t *testing.T, d string) {
	t.Helper()
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
}

func mustChmod(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}
