package ownerserve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/owner"
	"github.com/vaultgraph/vaultgraph/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// DialTimeout bounds a connection to the owner's socket.
const DialTimeout = 2 * time.Second

// Client is who a process is to its owner: its Hello but for the kind
// and the tool selection of each connection.
type Client struct {
	Dir     string   // the state folder
	Vaults  []string // configured vault folders, primary first
	Version string
}

// Dial connects to the owner of c.Dir as a client of kind with the tool
// selection sel, and returns the connection past the owner's Welcome
// (buffered reads included). The owner is checked to run as this user
// before the Hello is sent (owner.Dial); a refusal of the owner is a
// *RefusedError.
func (c Client) Dial(kind string, sel tools.Selection) (io.ReadWriteCloser, owner.Welcome, error) {
	var w owner.Welcome
	conn, err := owner.Dial(c.Dir, DialTimeout)
	if err != nil {
		return nil, w, err
	}
	surface, _ := json.Marshal(sel)
	h := owner.Hello{Protocol: owner.Protocol, Kind: kind, Surface: surface, Vaults: c.Vaults, PID: os.Getpid(), Version: c.Version}
	if err := owner.WriteLine(conn, h); err != nil {
		_ = conn.Close()
		return nil, w, err
	}
	br := bufio.NewReaderSize(conn, 64<<10)
	if err := owner.ReadLine(br, &w); err != nil {
		_ = conn.Close()
		return nil, w, fmt.Errorf("the owning process did not answer: %w", err)
	}
	if w.Error != "" {
		_ = conn.Close()
		return nil, w, &RefusedError{Msg: w.Error}
	}
	return struct {
		io.Reader
		io.Writer
		io.Closer
	}{br, conn, conn}, w, nil
}

// RefusedError is the owner's refusal of a connection: final.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return "the vault's owning process refused: " + e.Msg }

// Connector finds the vault's store for a process: it takes the owner
// lock and becomes the owner when it is free, else connects to the owner
// (retrying while an owner starts or another takes over).
type Connector[A App] struct {
	Client Client
	Logger *slog.Logger
	// Become makes this process the owner, holding lock (which it
	// releases on an error).
	Become func(ctx context.Context, lock *owner.Lock) (*Role[A], error)

	mu    sync.Mutex
	own   *Role[A] // set once this process owns the store
	onOwn func(*Role[A])
}

// ConnectRetry is the longest pause between two attempts to find the
// owner.
const ConnectRetry = 200 * time.Millisecond

// OnOwn has f called once this process owns the store (an HTTP front that
// took it over starts its web view).
func (c *Connector[A]) OnOwn(f func(*Role[A])) {
	c.mu.Lock()
	c.onOwn = f
	c.mu.Unlock()
}

// Attempt takes the lock or connects once, as a client of the tool
// selection sel; all nil: try again.
func (c *Connector[A]) Attempt(ctx context.Context, kind string, sel tools.Selection) (own *Role[A], conn io.ReadWriteCloser, w owner.Welcome, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.own != nil {
		return c.own, nil, w, nil
	}
	lock, err := owner.TryLock(c.Client.Dir)
	switch {
	case err == nil:
		own, err := c.Become(ctx, lock)
		if err != nil {
			lock.Release()
			return nil, nil, w, err
		}
		c.own = own
		if c.onOwn != nil {
			c.onOwn(own)
		}
		return own, nil, w, nil
	case !errors.Is(err, owner.ErrHeld):
		return nil, nil, w, err
	}
	conn, w, err = c.Client.Dial(kind, sel)
	if err != nil {
		var refused *RefusedError
		if errors.As(err, &refused) || errors.Is(err, owner.ErrNotYours) {
			return nil, nil, w, err
		}
		return nil, nil, w, nil // the owner is starting or leaving: again
	}
	return nil, conn, w, nil
}

// Find returns this process's own Role or a connection to the owner as a
// client of the tool selection sel, trying until ctx ends.
func (c *Connector[A]) Find(ctx context.Context, kind string, sel tools.Selection) (*Role[A], io.ReadWriteCloser, owner.Welcome, error) {
	pause := 10 * time.Millisecond
	for {
		own, conn, w, err := c.Attempt(ctx, kind, sel)
		if err != nil || own != nil || conn != nil {
			return own, conn, w, err
		}
		select {
		case <-ctx.Done():
			return nil, nil, w, ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, ConnectRetry)
	}
}

// ConnectAs is server.Connect for a relay, as a client of the tool
// selection sel: the owner's socket, or this process's own Role once it
// owns the store.
func (c *Connector[A]) ConnectAs(sel tools.Selection) server.Connect {
	return c.connect(owner.KindMCP, sel)
}

// ConnectFront is ConnectAs for an HTTP front (server.Forward), whose tool
// calls name their callers (owner.KindMCPFront).
func (c *Connector[A]) ConnectFront(sel tools.Selection) server.Connect {
	return c.connect(owner.KindMCPFront, sel)
}

func (c *Connector[A]) connect(kind string, sel tools.Selection) server.Connect {
	return func(ctx context.Context) (io.ReadWriteCloser, error) {
		own, conn, w, err := c.Find(ctx, kind, sel)
		if err != nil {
			return nil, err
		}
		if own != nil {
			return own.Pipe(kind, sel)
		}
		c.logger().Info("serving through the vault's owning process", "pid", w.PID, "version", w.Version, "read_only", sel.ReadOnly)
		return conn, nil
	}
}

// Owned returns the Role this process took, if any.
func (c *Connector[A]) Owned() *Role[A] {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.own
}

// Stop shuts the Role down, if this process took it.
func (c *Connector[A]) Stop(ctx context.Context) {
	if own := c.Owned(); own != nil {
		own.Shutdown(ctx)
	}
}

func (c *Connector[A]) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Logger
}

// WaitLock takes dir's owner lock, waiting while another process holds
// it (a sync --watch worker must own the store).
func WaitLock(ctx context.Context, dir string, logger *slog.Logger) (*owner.Lock, error) {
	said := false
	for {
		lock, err := owner.TryLock(dir)
		if err == nil {
			if said {
				logger.Info("took over the vault's store")
			}
			return lock, nil
		}
		if !errors.Is(err, owner.ErrHeld) {
			return nil, err
		}
		if !said {
			logger.Info("another vaultgraph process owns this vault's store; waiting to take over when it exits", "state_dir", dir)
			said = true
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
