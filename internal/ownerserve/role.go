// Package ownerserve is the process that owns a vault's embedded store,
// seen from its socket, and the way every other process finds it (issue
// 24; docs/ARCHITECTURE.md, "Many processes, one vault"):
//
//   - Role serves the other processes' connections: each starts with a
//     Hello (package owner), then is an MCP session served by the owner's
//     MCP server for the caller's tool selection, or one sync; when the
//     owner stops on purpose it finishes what it read and says so
//     (server.MethodHandover) before it closes, so the callers' relays
//     resend the rest to the next owner.
//   - Connector finds the store for a process: it takes the owner lock
//     and becomes the owner when the lock is free, else connects to the
//     owner, trying again while one starts or another takes over.
//
// The package knows the store only through App, which cmd/vaultgraph
// implements with its app (store, vault mirror, services, tools); package
// owner holds the lock, the socket and the Hello line.
package ownerserve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/owner"
	"github.com/vaultgraph/vaultgraph/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// App is what the owner serves: the opened store and vault, and the tools
// over them.
type App interface {
	// Server makes the MCP server of a tool selection (the Role makes
	// one per selection, at its first use, and keeps it).
	Server(sel tools.Selection) (*mcpserver.MCPServer, error)
	// Selection is the tool selection of the owner's own configuration,
	// served to a Hello that names none.
	Selection() tools.Selection
	// Serves reports whether vault is a folder the App serves (a Hello
	// naming another vault is served this one, which is logged).
	Serves(vault string) bool
	// Run is the owner's background work (first sync, indexer, watcher)
	// until ctx ends; Start runs it.
	Run(ctx context.Context)
	// SyncNow brings the store in line with the vault now, for another
	// process, and says what it did.
	SyncNow() string
	// Close closes the store, once the background work has ended.
	Close(ctx context.Context)
}

// Options are a Role's.
type Options struct {
	// Lock is the state folder's owner lock, held: the Role listens on
	// its socket and releases it when it shuts down. Nil: not shared (the
	// Neo4j store), no socket.
	Lock    *owner.Lock
	Version string // in Welcome
	Logger  *slog.Logger
	// HelloTimeout bounds the wait for a connection's Hello (0:
	// DefaultHelloTimeout); its size is bounded by owner.MaxLine.
	HelloTimeout time.Duration
	// ShutdownWait bounds the wait for the requests in flight when the
	// Role shuts down (0: DefaultShutdownWait).
	ShutdownWait time.Duration
}

// DefaultHelloTimeout bounds the wait for a connection's Hello.
const DefaultHelloTimeout = 10 * time.Second

// DefaultShutdownWait bounds how long the owner waits for the requests in
// flight when it stops.
const DefaultShutdownWait = 30 * time.Second

// Role is this process as the owner of a state folder's store: the App,
// its background work, and an MCP server per tool selection its clients
// ask for, served on the folder's socket and to this process's own front
// (Pipe, ServerFor).
type Role[A App] struct {
	app    A
	opts   Options
	logger *slog.Logger
	ln     net.Listener

	bg             context.Context // the background work's, ended by shutdown
	stopBackground context.CancelFunc
	background     sync.WaitGroup

	mu      sync.Mutex
	servers map[string]*mcpserver.MCPServer // by tool selection
	conns   map[net.Conn]struct{}
	serving sync.WaitGroup
	closing bool
	seq     atomic.Int64
}

// Start makes app's owner: it checks app's own tool selection (a bad one
// fails the start), runs app's background work, and, when opts.Lock is
// set, serves the lock's socket. On an error the app is closed (the
// caller releases the lock).
func Start[A App](ctx context.Context, app A, opts Options) (*Role[A], error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.HelloTimeout <= 0 {
		opts.HelloTimeout = DefaultHelloTimeout
	}
	if opts.ShutdownWait <= 0 {
		opts.ShutdownWait = DefaultShutdownWait
	}
	r := &Role[A]{app: app, opts: opts, logger: opts.Logger,
		servers: map[string]*mcpserver.MCPServer{}, conns: map[net.Conn]struct{}{}}
	if _, err := r.ServerFor(app.Selection()); err != nil {
		app.Close(ctx)
		return nil, err
	}
	r.bg, r.stopBackground = context.WithCancel(context.WithoutCancel(ctx))
	r.background.Go(func() { app.Run(r.bg) })
	if opts.Lock != nil {
		ln, err := opts.Lock.Listen()
		if err != nil {
			r.Shutdown(ctx)
			return nil, err
		}
		r.ln = ln
		r.serving.Go(r.accept)
		r.logger.Info("owning the vault's store; other vaultgraph processes on it connect here", "socket", ln.Addr().String(), "pid", os.Getpid())
	}
	return r, nil
}

// App is the app this process owns.
func (r *Role[A]) App() A { return r.app }

// Addr is the socket the Role listens on ("" when not shared).
func (r *Role[A]) Addr() string {
	if r.ln == nil {
		return ""
	}
	return r.ln.Addr().String()
}

// Go runs f in the background, under a context that Shutdown (or
// StopBackground) ends; Shutdown waits for it before it closes the app.
func (r *Role[A]) Go(f func(ctx context.Context)) {
	r.background.Go(func() { f(r.bg) })
}

// Background is the background work's context.
func (r *Role[A]) Background() context.Context { return r.bg }

// StopBackground ends the background work's context (Shutdown does too).
func (r *Role[A]) StopBackground() { r.stopBackground() }

// ServerFor returns the MCP server of a tool selection, made at its first
// use.
func (r *Role[A]) ServerFor(sel tools.Selection) (*mcpserver.MCPServer, error) {
	key, _ := json.Marshal(sel)
	r.mu.Lock()
	defer r.mu.Unlock()
	if srv := r.servers[string(key)]; srv != nil {
		return srv, nil
	}
	srv, err := r.app.Server(sel)
	if err != nil {
		return nil, err
	}
	r.servers[string(key)] = srv
	return srv, nil
}

// accept serves the socket until it is closed.
func (r *Role[A]) accept() {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		if !r.track(c) {
			_ = c.Close()
			return
		}
		r.serving.Go(func() {
			defer r.untrack(c)
			r.handle(c)
		})
	}
}

func (r *Role[A]) track(c net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return false
	}
	r.conns[c] = struct{}{}
	return true
}

func (r *Role[A]) untrack(c net.Conn) {
	r.mu.Lock()
	delete(r.conns, c)
	r.mu.Unlock()
	_ = c.Close()
}

// handle serves one connection of another process: its Hello (at most
// owner.MaxLine bytes within HelloTimeout), then MCP, or one sync.
func (r *Role[A]) handle(c net.Conn) {
	br := bufio.NewReader(c)
	_ = c.SetReadDeadline(time.Now().Add(r.opts.HelloTimeout))
	welcome := owner.Welcome{Protocol: owner.Protocol, PID: os.Getpid(), Version: r.opts.Version}
	refuse := func(msg string) {
		welcome.Error = fitLine(msg)
		_ = c.SetWriteDeadline(time.Now().Add(r.opts.HelloTimeout))
		_ = owner.WriteLine(c, welcome)
	}
	var h owner.Hello
	if err := owner.ReadLine(br, &h); err != nil {
		if errors.Is(err, owner.ErrLineTooLong) {
			r.logger.Warn("a process sent a first line longer than the owner reads: closed", "max_bytes", owner.MaxLine)
			refuse(err.Error())
		}
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	if h.Protocol != owner.Protocol {
		refuse(fmt.Sprintf("this vaultgraph (pid %d, %s) speaks %s, not %s: stop it or use the same version", os.Getpid(), r.opts.Version, owner.Protocol, h.Protocol))
		return
	}
	if len(h.Vaults) > 0 && !r.app.Serves(h.Vaults[0]) {
		r.logger.Warn("a process of another configuration connected: it is served this process's vault", "its_vault", h.Vaults[0], "pid", h.PID)
	}
	switch h.Kind {
	case owner.KindSync:
		welcome.Detail = fitLine(r.app.SyncNow())
		_ = owner.WriteLine(c, welcome)
	case owner.KindMCP, owner.KindMCPFront:
		sel := r.app.Selection()
		if len(h.Surface) > 0 {
			sel = tools.Selection{}
			if err := json.Unmarshal(h.Surface, &sel); err != nil {
				refuse("the tool selection is not understood: " + err.Error())
				return
			}
		}
		srv, err := r.ServerFor(sel)
		if err != nil {
			refuse(err.Error())
			return
		}
		if err := owner.WriteLine(c, welcome); err != nil {
			return
		}
		r.logger.Debug("a process connected", "pid", h.PID, "version", h.Version)
		r.serveMCP(srv, struct {
			io.Reader
			io.Writer
		}{br, c}, c, h.Kind == owner.KindMCPFront)
	default:
		refuse(fmt.Sprintf("unknown connection kind %q", h.Kind))
	}
}

// maxWelcomeText bounds a Welcome's error or detail, so the Welcome fits
// the line its reader takes (owner.MaxLine) whatever a sync's error says.
const maxWelcomeText = 16 << 10

// fitLine cuts s to maxWelcomeText bytes (on a character boundary).
func fitLine(s string) string {
	if len(s) <= maxWelcomeText {
		return s
	}
	cut := maxWelcomeText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// serveMCP serves srv on rw until the other side ends it, or the owner
// closes it to hand over: then every request read has been answered, and
// the last line says so (server.MethodHandover). front: the connection is
// an HTTP front's, whose tool calls name their callers (owner.KindMCPFront).
func (r *Role[A]) serveMCP(srv *mcpserver.MCPServer, rw io.ReadWriter, c io.Closer, front bool) {
	id := fmt.Sprintf("owner-%d-%d", os.Getpid(), r.seq.Add(1))
	// Requests run under a context the shutdown does not cancel: it stops
	// reading instead (CloseRead), so a request in flight finishes.
	ctx := context.Background()
	if front {
		ctx = server.WithRelayedActors(ctx)
	}
	if err := server.ServeStream(ctx, srv, rw, rw, id, r.logger); err != nil {
		r.logger.Debug("a connection ended", "err", err)
	}
	r.mu.Lock()
	closing := r.closing
	r.mu.Unlock()
	if closing {
		_, _ = io.WriteString(rw, `{"jsonrpc":"2.0","method":"`+server.MethodHandover+`"}`+"\n")
	}
	_ = c.Close()
}

// Pipe connects this process's own front to the owner, in process, as a
// client of kind (owner.KindMCP or owner.KindMCPFront) with the tool
// selection sel.
func (r *Role[A]) Pipe(kind string, sel tools.Selection) (io.ReadWriteCloser, error) {
	srv, err := r.ServerFor(sel)
	if err != nil {
		return nil, err
	}
	front, back := net.Pipe()
	if !r.track(back) {
		return nil, errors.New("the owner is shutting down")
	}
	r.serving.Go(func() {
		defer r.untrack(back)
		r.serveMCP(srv, back, back, kind == owner.KindMCPFront)
	})
	return front, nil
}

// Shutdown stops serving (every connection ends after its requests in
// flight, told to reconnect), stops the background work, closes the app
// and releases the lock, so another process can take over. Calling it
// again does nothing.
func (r *Role[A]) Shutdown(ctx context.Context) {
	r.mu.Lock()
	if r.closing {
		r.mu.Unlock()
		return
	}
	r.closing = true
	if r.ln != nil {
		_ = r.ln.Close()
	}
	for c := range r.conns {
		closeRead(c)
	}
	r.mu.Unlock()
	done := make(chan struct{})
	go func() { r.serving.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(r.opts.ShutdownWait):
		r.logger.Warn("stopping with requests still running")
		r.mu.Lock()
		for c := range r.conns {
			_ = c.Close()
		}
		r.mu.Unlock()
	}
	r.stopBackground()
	r.background.Wait()
	r.app.Close(ctx)
	r.opts.Lock.Release()
}

// closeRead makes a connection's reader see its end, so the server stops
// reading it and finishes what it read.
func closeRead(c net.Conn) {
	if uc, ok := c.(*net.UnixConn); ok {
		_ = uc.CloseRead()
		return
	}
	_ = c.SetReadDeadline(time.Now()) // net.Pipe: the read fails at once
}
