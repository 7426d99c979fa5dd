// Package owner lets many vaultgraph processes share one embedded store:
// one process per state folder owns it (it holds the folder's owner lock,
// opens the store, syncs and watches the vault) and serves the others
// through a unix socket in that folder; when the owner exits or is killed
// the kernel releases its lock and another process takes it.
//
// The package knows nothing of MCP or of the store: it takes the lock,
// listens and dials, and frames the one line each connection starts with
// (Hello, then Welcome); what follows on the connection is the caller's
// (newline-delimited JSON-RPC, see server.Relay). docs/ARCHITECTURE.md,
// "Many processes, one vault", describes the design.
package owner

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"
)

// LockFile and SocketFile are the owner's lock and socket in the state
// folder.
const (
	LockFile   = "owner.lock"
	SocketFile = "owner.sock"
)

// Protocol names the connection protocol in Hello and Welcome: a process
// of another protocol is refused with an error saying so.
const Protocol = "vaultgraph-owner/1"

// maxSocketPath is the longest path a unix socket address takes
// (sun_path is 108 bytes on Linux, 104 on macOS, with the final NUL).
const maxSocketPath = 103

// ErrHeld reports that another process owns the state folder.
var ErrHeld = errors.New("owner: another process owns the state folder")

// Lock is a held owner lock; Release gives it up (exit does too).
type Lock struct {
	f *os.File
}

// TryLock takes the owner lock of dir (created if missing) without
// waiting; ErrHeld when another process holds it.
func TryLock(dir string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("owner: create %s: %w", dir, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("owner: open lock: %w", err)
	}
	if err := tryFlock(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	// Who owns it, for a person looking (doctor, status).
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(fmt.Sprintf("%d\n", os.Getpid())), 0)
	return &Lock{f: f}, nil
}

// Release gives the lock up. Calling it again does nothing.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = l.f.Close() // closing the descriptor releases the flock
	l.f = nil
}

// Address is the socket address of dir's owner: the socket file in dir,
// or, when that path is too long for a socket address, a Linux abstract
// socket named after dir (which only same-user peers may use: Listen
// checks every peer's credentials).
func Address(dir string) string {
	p := filepath.Join(dir, SocketFile)
	if len(p) <= maxSocketPath || !abstractSockets {
		return p
	}
	sum := sha256.Sum256([]byte(dir))
	return "@vaultgraph-" + hex.EncodeToString(sum[:12])
}

// Listen listens on dir's owner socket. The caller must hold dir's
// owner lock: a socket file left by an owner that died is removed.
// Connections from another user are closed at once.
func Listen(dir string) (net.Listener, error) {
	addr := Address(dir)
	if addr[0] != '@' {
		_ = os.Remove(addr)
	}
	ln, err := net.Listen("unix", addr)
	if err != nil {
		return nil, fmt.Errorf("owner: listen on %s: %w", addr, err)
	}
	if ul, ok := ln.(*net.UnixListener); ok && addr[0] != '@' {
		ul.SetUnlinkOnClose(true)
		_ = os.Chmod(addr, 0o600)
	}
	return sameUser{ln}, nil
}

// sameUser accepts only connections of this process's user.
type sameUser struct{ net.Listener }

func (l sameUser) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if peerIsSameUser(c) {
			return c, nil
		}
		_ = c.Close()
	}
}

// Dial connects to dir's owner, if there is one listening.
func Dial(dir string, timeout time.Duration) (net.Conn, error) {
	return net.DialTimeout("unix", Address(dir), timeout)
}

// Hello is the first line a process sends its owner.
type Hello struct {
	Protocol string `json:"protocol"`
	// Kind is what the connection is for: KindMCP (JSON-RPC follows) or
	// KindSync (the owner syncs the vault and answers one Welcome).
	Kind string `json:"kind"`
	// Surface is the tool selection of the caller's configuration, as
	// JSON the owner understands (toolsets, read-only, renames...).
	Surface json.RawMessage `json:"surface,omitempty"`
	// Vaults are the caller's configured vault folders, primary first:
	// the owner says when it serves others.
	Vaults  []string `json:"vaults,omitempty"`
	PID     int      `json:"pid"`
	Version string   `json:"version,omitempty"`
}

// Kinds of connection.
const (
	KindMCP  = "mcp"
	KindSync = "sync"
)

// Welcome is the owner's answer to Hello: an error (the connection then
// closes), or what the owner is.
type Welcome struct {
	Protocol string `json:"protocol"`
	Error    string `json:"error,omitempty"`
	PID      int    `json:"pid"`
	Version  string `json:"version,omitempty"`
	// Detail is the answer of a KindSync connection (its summary).
	Detail string `json:"detail,omitempty"`
}

// WriteLine writes v as one JSON line.
func WriteLine(c net.Conn, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = c.Write(append(b, '\n'))
	return err
}

// ReadLine reads one JSON line into v through r (a reader of c that the
// caller goes on using, so nothing read past the line is lost).
func ReadLine(r *bufio.Reader, v any) error {
	line, err := r.ReadBytes('\n')
	if err != nil {
		return err
	}
	if err := json.Unmarshal(line, v); err != nil {
		return fmt.Errorf("owner: a line that is not JSON: %w", err)
	}
	return nil
}
