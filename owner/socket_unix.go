//go:build unix

package owner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Where the owner's socket lives. Issue 43 found the old fallback, a
// Linux abstract socket named after the state folder, open to every
// user: one of uid 65534 bound the name first and was sent a serve's
// vault path and tool calls. The socket is now always a file in a folder
// of this user's only (mode 0700, checked with Lstat: not a symbolic
// link, owned by this user), and its path is written into the lock file
// for the processes that dial it:
//
//  1. owner.sock in the state folder, when the folder is private and the
//     path fits a socket address (the usual case);
//  2. else $XDG_RUNTIME_DIR/vaultgraph/<hash>.sock, when XDG_RUNTIME_DIR
//     is a private folder of this user's (as systemd makes it);
//  3. else <temp>/vaultgraph-<uid>/<hash>.sock, created 0700; when that
//     name is taken by anything but a private folder of this user's
//     (another user may make it first), a new folder of a random name
//     made beside it (os.MkdirTemp: nobody else can have made it),
//     removed when the owner stops listening.
//
// <hash> names the state folder. Both ends check the other's user
// (peerUID) before they read or send a byte.

// maxSocketPath is the longest path a unix socket address takes
// (sun_path is 108 bytes on Linux, 104 on macOS, with the final NUL).
const maxSocketPath = 103

// selfUID is the user both ends of a connection must be, and whose
// folders the socket's are.
func selfUID() int {
	if v := playedUID.Load(); v != 0 {
		return int(v - 1)
	}
	return os.Geteuid()
}

// playedUID, when not 0, is the uid+1 a test has this process count as its
// own (to play another user's process without one).
var playedUID atomic.Int64

// Listen listens on the owner's socket (placed as the comment above says)
// and writes its path into the lock file, where Dial finds it. Only the
// lock's holder listens: a socket file left by an owner that died is
// removed. Connections from another user are closed at once; Close
// removes the socket file.
func (l *Lock) Listen() (net.Listener, error) {
	if l == nil || l.f == nil {
		return nil, errors.New("owner: listen without holding the owner lock")
	}
	path, cleanup, err := placeSocket(l.dir)
	if err != nil {
		return nil, err
	}
	_ = os.Remove(path) // a dead owner's: the folder is this user's alone
	ln, err := net.Listen("unix", path)
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("owner: listen on %s: %w", path, err)
	}
	ul := ln.(*net.UnixListener)
	ul.SetUnlinkOnClose(true)
	if err := os.Chmod(path, 0o600); err != nil {
		_ = ul.Close()
		cleanup()
		return nil, fmt.Errorf("owner: %w", err)
	}
	// The lock file says who owns the folder and where it listens; its
	// first line stays (TryLock wrote it), so a reader sees the second
	// whole or not at all.
	if _, err := l.f.WriteAt(fmt.Appendf(nil, "%d\n%s\n", os.Getpid(), path), 0); err != nil {
		_ = ul.Close()
		cleanup()
		return nil, fmt.Errorf("owner: write the socket's path into the lock: %w", err)
	}
	return &listener{UnixListener: ul, cleanup: cleanup}, nil
}

// listener accepts only connections of this process's user.
type listener struct {
	*net.UnixListener
	cleanup func()
}

func (l *listener) Accept() (net.Conn, error) {
	for {
		c, err := l.UnixListener.Accept()
		if err != nil {
			return nil, err
		}
		if err := checkPeer(c); err == nil {
			return c, nil
		}
		_ = c.Close()
	}
}

func (l *listener) Close() error {
	err := l.UnixListener.Close()
	l.cleanup()
	return err
}

// Dial connects to dir's owner, if there is one listening, and checks
// that it runs as this user before anything is sent (ErrNotYours).
func Dial(dir string, timeout time.Duration) (net.Conn, error) {
	addr, err := advertised(dir)
	if err != nil {
		return nil, err
	}
	c, err := net.DialTimeout("unix", addr, timeout)
	if err != nil {
		return nil, err
	}
	if err := checkPeer(c); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("%w (%s; nothing was sent to it)", err, addr)
	}
	return c, nil
}

// advertised is the socket path dir's owner wrote into its lock file;
// owner.sock in dir when the file names none and dir is private (an owner
// of an earlier vaultgraph, whose socket was there), never an abstract
// name.
func advertised(dir string) (string, error) {
	f, err := os.Open(filepath.Join(dir, LockFile))
	if err != nil {
		return "", fmt.Errorf("owner: no owner yet: %w", err)
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 4<<10))
	lines := bytes.SplitN(b, []byte("\n"), 3)
	if len(lines) == 3 && filepath.IsAbs(string(lines[1])) {
		return string(lines[1]), nil
	}
	if p := filepath.Join(dir, SocketFile); len(p) <= maxSocketPath && checkPrivate(dir) == nil {
		return p, nil
	}
	return "", errors.New("owner: the owner has not said where it listens yet")
}

// checkPeer returns ErrNotYours when c's other end runs as another user.
func checkPeer(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil // net.Pipe in process
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return fmt.Errorf("owner: peer credentials: %w", err)
	}
	var (
		uid   int
		known bool
	)
	cerr := raw.Control(func(fd uintptr) { uid, known, err = peerUID(int(fd)) })
	switch {
	case cerr != nil:
		return fmt.Errorf("owner: peer credentials: %w", cerr)
	case err != nil:
		return fmt.Errorf("owner: peer credentials: %w", err)
	case known && uid != selfUID():
		return fmt.Errorf("%w: uid %d, you are uid %d", ErrNotYours, uid, selfUID())
	}
	return nil
}

// placeSocket returns where the owner of the state folder dir listens,
// and what to remove when it stops.
func placeSocket(dir string) (path string, cleanup func(), err error) {
	nothing := func() {}
	if p := filepath.Join(dir, SocketFile); len(p) <= maxSocketPath && checkPrivate(dir) == nil {
		return p, nothing, nil
	}
	name := socketName(dir)
	var why []string
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
		d := filepath.Join(rt, "vaultgraph")
		p := filepath.Join(d, name)
		switch {
		case !filepath.IsAbs(rt):
			why = append(why, "XDG_RUNTIME_DIR is not an absolute path")
		case len(p) > maxSocketPath:
			why = append(why, fmt.Sprintf("%s is longer than %d bytes", p, maxSocketPath))
		default:
			if err := checkPrivate(rt); err != nil {
				why = append(why, "XDG_RUNTIME_DIR: "+err.Error())
			} else if err := ensurePrivate(d); err != nil {
				why = append(why, err.Error())
			} else {
				return p, nothing, nil
			}
		}
	}
	bases := []string{os.TempDir()}
	if bases[0] != "/tmp" {
		bases = append(bases, "/tmp")
	}
	for _, base := range bases {
		d := filepath.Join(base, fmt.Sprintf("vaultgraph-%d", selfUID()))
		// os.MkdirTemp adds up to 11 bytes to the name.
		if len(filepath.Join(d, name))+11 > maxSocketPath {
			why = append(why, fmt.Sprintf("%s is too long a folder for a socket", base))
			continue
		}
		err := ensurePrivate(d)
		if err == nil {
			return filepath.Join(d, name), nothing, nil
		}
		why = append(why, err.Error())
		// Another user may have taken the name: a folder of a random
		// name, made now, is this user's alone.
		d, err = os.MkdirTemp(base, fmt.Sprintf("vaultgraph-%d-", selfUID()))
		if err != nil {
			why = append(why, err.Error())
			continue
		}
		if err := checkPrivate(d); err != nil {
			_ = os.Remove(d)
			why = append(why, err.Error())
			continue
		}
		p := filepath.Join(d, name)
		return p, func() { _ = os.Remove(p); _ = os.Remove(d) }, nil
	}
	return "", nil, fmt.Errorf("owner: no folder of yours alone (mode 0700) with a path short enough for the owner's socket (%d bytes at most): %s; set XDG_RUNTIME_DIR or TMPDIR to a short folder of yours",
		maxSocketPath, strings.Join(why, "; "))
}

// socketName names the socket of the state folder dir outside it.
func socketName(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	sum := sha256.Sum256([]byte(dir))
	return hex.EncodeToString(sum[:12]) + ".sock"
}

// ensurePrivate makes the folder d (mode 0700) unless it exists, and
// checks that it is private.
func ensurePrivate(d string) error {
	if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", d, err)
	}
	return checkPrivate(d)
}

// checkPrivate returns why the folder d is not this user's alone: a
// symbolic link, not a folder, another user's, or open to others (any
// group or other permission bit).
func checkPrivate(d string) error {
	fi, err := os.Lstat(d)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link", d)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", d)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: no owner known", d)
	}
	if int(st.Uid) != selfUID() {
		return fmt.Errorf("%s belongs to uid %d, not to you (uid %d)", d, st.Uid, selfUID())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s is open to others (mode %04o)", d, fi.Mode().Perm())
	}
	return nil
}
