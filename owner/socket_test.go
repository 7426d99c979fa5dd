//go:build unix

package owner

import (
	"bufio"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// serveHellos answers every connection's Hello with a Welcome whose PID
// is the Hello's plus one, until ln is closed.
func serveHellos(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			var h Hello
			if ReadLine(bufio.NewReader(c), &h) == nil {
				_ = WriteLine(c, Welcome{Protocol: Protocol, PID: h.PID + 1, Detail: h.Kind})
			}
		}()
	}
}

// hello dials dir's owner and exchanges Hello and Welcome.
func hello(t *testing.T, dir string) {
	t.Helper()
	c, err := Dial(dir, 5*time.Second)
	if err != nil {
		t.Fatalf("dial the owner of %s: %v", dir, err)
	}
	defer c.Close()
	if err := WriteLine(c, Hello{Protocol: Protocol, Kind: KindSync, PID: 41}); err != nil {
		t.Fatal(err)
	}
	var w Welcome
	if err := ReadLine(bufio.NewReader(c), &w); err != nil || w.PID != 42 || w.Detail != KindSync {
		t.Fatalf("welcome %+v, %v", w, err)
	}
}

// The socket carries Hello and Welcome, also from a folder whose path is
// too long for a socket file: the socket is then a file in a private
// folder elsewhere, never an abstract name.
func TestSocketHello(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("TMPDIR", shortTemp(t))
	for _, dir := range []string{stateDir(t), filepath.Join(t.TempDir(), strings.Repeat("long-folder-name-", 8))} {
		l, err := TryLock(dir)
		if err != nil {
			t.Fatal(err)
		}
		ln, err := l.Listen()
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		if !filepath.IsAbs(addr) || len(addr) > maxSocketPath {
			t.Fatalf("socket %q: want a file path of at most %d bytes", addr, maxSocketPath)
		}
		if err := checkPrivate(filepath.Dir(addr)); err != nil {
			t.Fatalf("the socket's folder: %v", err)
		}
		go serveHellos(ln)
		hello(t, dir)
		_ = ln.Close()
		l.Release()
	}
}

// Each end refuses the other when it runs as another user: the dialling
// side before it sends a byte, the owner before it reads one. Another
// user is played here by changing which uid this process counts as its
// own; TestSquatter does it with a real process of uid 65534.
func TestBothEndsCheckTheUser(t *testing.T) {
	dir := stateDir(t)
	l, err := TryLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	ln, err := l.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	me := selfUID()
	playUID(t, me+1)

	// The dialler sees another user's listener: refused, nothing sent.
	if _, err := Dial(dir, 5*time.Second); !errors.Is(err, ErrNotYours) {
		t.Fatalf("Dial of another user's socket: %v, want ErrNotYours", err)
	}
	// The owner sees another user's connection: closed unread.
	c, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = WriteLine(c, Hello{Protocol: Protocol, Kind: KindSync})
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := c.Read(make([]byte, 1)); err == nil || n > 0 {
		t.Fatalf("another user's connection read %d bytes, %v: want it closed", n, err)
	}
	select {
	case c := <-accepted:
		t.Fatalf("Accept returned another user's connection %v", c.RemoteAddr())
	default:
	}
	// The same user is served.
	playUID(t, me)
	c2, err := Dial(dir, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	select {
	case c := <-accepted:
		_ = c.Close()
	case <-time.After(10 * time.Second):
		t.Fatal("the same user's connection was not accepted")
	}
}

// playUID has this process count uid as its own until the test ends.
func playUID(t *testing.T, uid int) {
	playedUID.Store(int64(uid) + 1)
	t.Cleanup(func() { playedUID.Store(0) })
}

// listenIn takes the lock of dir and listens; the listener and lock end
// with the test.
func listenIn(t *testing.T, dir string) string {
	t.Helper()
	l, err := TryLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Release)
	ln, err := l.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go serveHellos(ln)
	hello(t, dir)
	return ln.Addr().String()
}

// longDir is a state folder whose owner.sock is too long for a socket.
func longDir(t *testing.T) string {
	return filepath.Join(t.TempDir(), strings.Repeat("a-long-state-folder-", 6))
}

// stateDir is a state folder TryLock makes (0700, as vaultgraph's are).
func stateDir(t *testing.T) string { return filepath.Join(t.TempDir(), "state") }

// shortTemp is a private folder with a short path (t.TempDir's carry the
// test's name), removed when the test ends.
func shortTemp(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/tmp", "vgo-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	return d
}

// The socket goes to the first private folder of a short path: the state
// folder, else $XDG_RUNTIME_DIR/vaultgraph, else <temp>/vaultgraph-<uid>,
// else a new folder of a random name beside that; a folder that is a
// link, open to others or not a folder is passed over.
func TestSocketPlacement(t *testing.T) {
	uid := selfUID()
	perUser := func(tmp string) string { return filepath.Join(tmp, "vaultgraph-"+strconv.Itoa(uid)) }
	t.Run("state folder", func(t *testing.T) {
		dir := stateDir(t)
		if got := listenIn(t, dir); got != filepath.Join(dir, SocketFile) {
			t.Fatalf("socket %s, want owner.sock in the state folder", got)
		}
	})
	t.Run("state folder open to others", func(t *testing.T) {
		tmp := shortTemp(t)
		t.Setenv("XDG_RUNTIME_DIR", "")
		t.Setenv("TMPDIR", tmp)
		dir := t.TempDir() // 0755
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if got := listenIn(t, dir); filepath.Dir(got) != perUser(tmp) {
			t.Fatalf("socket %s, want it in %s", got, perUser(tmp))
		}
	})
	t.Run("runtime dir", func(t *testing.T) {
		rt := shortTemp(t)
		t.Setenv("XDG_RUNTIME_DIR", rt)
		if got := listenIn(t, longDir(t)); filepath.Dir(got) != filepath.Join(rt, "vaultgraph") {
			t.Fatalf("socket %s, want it in %s/vaultgraph", got, rt)
		}
	})
	t.Run("runtime dir open to others", func(t *testing.T) {
		rt, tmp := shortTemp(t), shortTemp(t)
		if err := os.Chmod(rt, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("XDG_RUNTIME_DIR", rt)
		t.Setenv("TMPDIR", tmp)
		if got := listenIn(t, longDir(t)); filepath.Dir(got) != perUser(tmp) {
			t.Fatalf("socket %s, want it in %s", got, perUser(tmp))
		}
	})
	for _, taken := range []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"per-user folder open to others", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, 0o777); err != nil {
				t.Fatal(err)
			}
		}},
		{"per-user folder a link", func(t *testing.T, path string) {
			if err := os.Symlink(t.TempDir(), path); err != nil {
				t.Fatal(err)
			}
		}},
		{"per-user folder a file", func(t *testing.T, path string) {
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(taken.name, func(t *testing.T) {
			tmp := shortTemp(t)
			t.Setenv("XDG_RUNTIME_DIR", "")
			t.Setenv("TMPDIR", tmp)
			taken.make(t, perUser(tmp))
			dir := longDir(t)
			l, err := TryLock(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release()
			ln, err := l.Listen()
			if err != nil {
				t.Fatal(err)
			}
			go serveHellos(ln)
			got := ln.Addr().String()
			if d := filepath.Dir(got); filepath.Dir(d) != tmp || !strings.HasPrefix(filepath.Base(d), "vaultgraph-"+strconv.Itoa(uid)+"-") {
				t.Fatalf("socket %s, want it in a new folder %s-*", got, perUser(tmp))
			}
			hello(t, dir)
			_ = ln.Close()
			if _, err := os.Lstat(filepath.Dir(got)); !os.IsNotExist(err) {
				t.Fatalf("the folder made for the socket is left after Close: %v", err)
			}
		})
	}
}
