// Package owner lets many vaultgraph processes share one embedded store:
// one process per state folder owns it (it holds the folder's owner lock,
// opens the store, syncs and watches the vault) and serves the others
// through a unix socket; when the owner exits or is killed the kernel
// releases its lock and another process takes it.
//
// The package knows nothing of MCP or of the store: it takes the lock,
// places the socket where only this user can reach it, listens and dials
// (each side checking the other's user before a byte is read or sent),
// and frames the one line each connection starts with (Hello, then
// Welcome); what follows on the connection is the caller's
// (newline-delimited JSON-RPC, see server.Relay; internal/ownerserve
// serves it). docs/ARCHITECTURE.md, "Many processes, one vault",
// describes the design.
package owner

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
)

// LockFile and SocketFile are the owner's lock in the state folder and
// the name of its socket there (when the folder is private and its path
// short enough; see Lock.Listen).
const (
	LockFile   = "owner.lock"
	SocketFile = "owner.sock"
)

// Protocol names the connection protocol in Hello and Welcome: a process
// of another protocol is refused with an error saying so.
const Protocol = "vaultgraph-owner/1"

// MaxLine bounds Hello and Welcome (a tool selection and vault paths: a
// few KiB): ReadLine refuses a longer line after reading at most this
// much of it. The JSON-RPC lines after them have their own bound
// (server.MaxStdioMessageBytes).
const MaxLine = 64 << 10

// ErrNotYours reports a socket whose other end is another user's
// process: nothing was sent to it or read from it.
var ErrNotYours = errors.New("owner: the socket's other end runs as another user")

// ErrHeld reports that another process owns the state folder.
var ErrHeld = errors.New("owner: another process owns the state folder")

// ErrLineTooLong reports a Hello or Welcome longer than MaxLine.
var ErrLineTooLong = fmt.Errorf("owner: the connection's first line is longer than %d KiB", MaxLine>>10)

// Lock is a held owner lock; Release gives it up (exit does too).
type Lock struct {
	dir string
	f   *os.File
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
	// Who owns it, for a person looking (doctor, status); Listen adds
	// where it listens, for the processes that dial it.
	_ = f.Truncate(0)
	_, _ = f.WriteAt(fmt.Appendf(nil, "%d\n", os.Getpid()), 0)
	return &Lock{dir: dir, f: f}, nil
}

// Release gives the lock up. Calling it again does nothing.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = l.f.Close() // closing the descriptor releases the flock
	l.f = nil
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
	// KindMCPFront is KindMCP for an HTTP front that relays its clients'
	// calls (server.Forward): each tool call carries its caller's actor in
	// _meta (server.ActorMetaKey), which the owner records in the change
	// log instead of "local". Only the front's own connection says so: a
	// relayed client's bytes come after the Hello and cannot.
	KindMCPFront = "mcp-front"
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

// ReadLine reads one JSON line of at most MaxLine bytes into v through r
// (a reader of c that the caller goes on using, so nothing read past the
// line is lost). A longer line is ErrLineTooLong, after at most MaxLine
// bytes of it were read and kept.
func ReadLine(r *bufio.Reader, v any) error {
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		if len(line)+len(part) > MaxLine {
			return ErrLineTooLong
		}
		line = append(line, part...)
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
	if err := json.Unmarshal(line, v); err != nil {
		return fmt.Errorf("owner: a line that is not JSON: %w", err)
	}
	return nil
}
