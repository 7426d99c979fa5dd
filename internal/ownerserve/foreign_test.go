//go:build linux

package ownerserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/internal/otheruser"
	"github.com/vaultgraph/vaultgraph/owner"
	"github.com/vaultgraph/vaultgraph/tools"
)

// peerEnv runs the test binary as a process of another user (uid 65534)
// for TestForeignUserIsRefused: "listen PATH" (bind PATH, say "ready",
// and when stdin ends say how many bytes it received) or "dial PATH"
// (send a Hello, say how many bytes came back).
const peerEnv = "VAULTGRAPH_OWNERSERVE_PEER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(peerEnv); spec != "" {
		os.Exit(runPeer(spec))
	}
	os.Exit(m.Run())
}

func runPeer(spec string) int {
	mode, path, _ := strings.Cut(spec, " ")
	switch mode {
	case "listen":
		ln, err := net.Listen("unix", path)
		if err != nil {
			fmt.Println("listen:", err)
			return 1
		}
		_ = os.Chmod(path, 0o777)
		var sink otheruser.Sink
		sink.Accept(ln)
		fmt.Println("ready")
		_, _ = io.Copy(io.Discard, os.Stdin)
		_ = ln.Close()
		_, n := sink.Counts()
		fmt.Println("received", n)
	case "dial":
		fmt.Println(otheruser.DialLine(path, func(c net.Conn) error {
			return owner.WriteLine(c, owner.Hello{Protocol: owner.Protocol, Kind: owner.KindSync, PID: os.Getpid()})
		}))
	}
	return 0
}

// Issue 48: a process of another user is refused at both ends. A
// connector whose lock file names a socket of uid 65534 (as another user
// able to write it would) returns owner.ErrNotYours at once, without
// retrying and without sending it a byte; a process of uid 65534 that
// reaches the owner's socket (its folder opened for the test) is closed
// unanswered, and the owner goes on serving its own user. Runs as root
// (CI), the other user's process as uid 65534 (package otheruser);
// skipped elsewhere.
func TestForeignUserIsRefused(t *testing.T) {
	otheruser.Command(t) // skips here when it cannot run
	base, err := os.MkdirTemp("/tmp", "vgos-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	_ = os.Chmod(base, 0o755)
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(open, os.ModeSticky|0o777)
	// The dialling side.
	theirs := filepath.Join(open, "theirs.sock")
	listener := otheruser.Start(t, peerEnv+"=listen "+theirs)
	if l := listener.Line(); l != "ready" {
		t.Fatalf("the other user's listener: %s", l)
	}
	dir := stateDir(t)
	held, err := owner.TryLock(dir) // an owner is running...
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	// ... and its lock file names the other user's socket.
	if err := os.WriteFile(filepath.Join(dir, owner.LockFile), fmt.Appendf(nil, "1\n%s\n", theirs), 0o600); err != nil {
		t.Fatal(err)
	}
	conn := &Connector[*fakeApp]{Client: Client{Dir: dir},
		Become: func(context.Context, *owner.Lock) (*Role[*fakeApp], error) {
			return nil, errors.New("the lock is held")
		}}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if _, _, _, err := conn.Find(ctx, owner.KindMCP, tools.Selection{}); !errors.Is(err, owner.ErrNotYours) {
		t.Fatalf("Find with another user's socket: %v, want owner.ErrNotYours at once", err)
	}
	_ = listener.In.Close()
	if l := listener.Line(); l != "received 0" {
		t.Fatalf("the other user's socket: %s, want no byte", l)
	}

	// The owner's side.
	dir2 := filepath.Join(base, "s2", "state") // on a path the other user may walk
	if err := os.Mkdir(filepath.Dir(dir2), 0o755); err != nil {
		t.Fatal(err)
	}
	own := startOwner(t, dir2, newFakeApp("A"), Options{})
	addr := own.Addr()
	_ = os.Chmod(filepath.Dir(addr), 0o777)
	_ = os.Chmod(addr, 0o777)
	if l := otheruser.Start(t, peerEnv+"=dial "+addr).Line(); !strings.HasPrefix(l, "connected: read 0 bytes") {
		t.Fatalf("the other user's Hello: %s, want the connection closed unanswered", l)
	}
	_ = os.Chmod(filepath.Dir(addr), 0o700)
	if _, w, err := (Client{Dir: dir2}).Dial(owner.KindSync, tools.Selection{}); err != nil || w.Detail != "synced by A" {
		t.Fatalf("the owner's own user after the refusal: %+v, %v", w, err)
	}
}
