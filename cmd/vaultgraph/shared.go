package main

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
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/metrics"
	"github.com/vaultgraph/vaultgraph/owner"
	"github.com/vaultgraph/vaultgraph/resources"
	"github.com/vaultgraph/vaultgraph/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// Many processes, one vault (issue 24): with the embedded store, one
// process per state folder owns the store (ownerRole) and the others
// reach it through the folder's socket (package owner); docs/ARCHITECTURE.md
// describes the design.

// shared reports whether cfg's store is shared through an owning process:
// the embedded store on unix systems (elsewhere a second process is
// refused, as before).
func shared(cfg *config.Config) bool {
	return cfg.Store != config.StoreNeo4j && runtime.GOOS != "windows"
}

// stateDirOf is the embedded store's folder of cfg's primary vault.
func stateDirOf(cfg *config.Config) string {
	return vaultStateDir(cfg.StateDir, cfg.ServedProjects()[0].Path)
}

// ownerOptions are what a command asks of the process it owns the store
// as.
type ownerOptions struct {
	watch      bool               // watch the vault after the first sync
	index      bool               // keep embeddings current in the background (serve)
	metrics    *metrics.Metrics   // nil: none
	clientLogs *server.ClientLogs // nil: a new one
	fail       func(error)        // a first sync that failed (not for a store that is down)
	adopt      string             // sync --adopt
	warm       bool               // prepare the store's live writes after the first sync (long-lived owners)
	oneShot    bool               // the process exits after its first sync (sync without --watch, call: withOneShot)
}

// ownerRole is this process as the owner of a state folder's store: the
// app (store, vault mirror, services), its first sync and watcher in the
// background, and an MCP server per tool selection its clients ask for,
// served on the folder's socket and to this process's own front.
type ownerRole struct {
	cfg       *config.Config
	logger    *slog.Logger
	lock      *owner.Lock // nil when not shared (Neo4j)
	a         *app
	all       []tools.Tool
	firstSync *server.FirstSync
	logs      *server.ClientLogs
	metrics   *metrics.Metrics
	ln        net.Listener

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

// becomeOwner opens the app as lock's holder (nil: no sharing), starts the
// first sync and, when lock is set, serves the state folder's socket.
func becomeOwner(ctx context.Context, cfg *config.Config, logger *slog.Logger, lock *owner.Lock, opts ownerOptions) (*ownerRole, error) {
	if opts.clientLogs == nil {
		opts.clientLogs = server.NewClientLogs()
	}
	if opts.warm { // a long-lived owner
		boundHeapHeadroom(logger)
	}
	appOpts := []appOption{withFirstSyncWait(firstSyncWriteWait), withAdopt(opts.adopt), withLive(opts.watch)}
	if opts.metrics != nil {
		appOpts = append(appOpts, withObserver(opts.metrics))
	}
	if opts.oneShot {
		appOpts = append(appOpts, withOneShot())
	}
	a, err := openApp(ctx, cfg, logger, appOpts...)
	if err != nil {
		return nil, err
	}
	all, err := a.allTools()
	if err != nil {
		a.close(ctx)
		return nil, err
	}
	o := &ownerRole{
		cfg: cfg, logger: logger, lock: lock, a: a, all: all,
		firstSync: server.NewFirstSync(), logs: opts.clientLogs, metrics: opts.metrics,
		servers: map[string]*mcpserver.MCPServer{}, conns: map[net.Conn]struct{}{},
	}
	// The first selection is checked now: a bad one fails the start.
	if _, err := o.serverFor(a.selection()); err != nil {
		a.close(ctx)
		return nil, err
	}
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	o.bg, o.stopBackground = bg, stop
	o.background.Go(func() { o.run(bg, opts) })
	if lock != nil {
		ln, err := owner.Listen(stateDirOf(cfg))
		if err != nil {
			o.shutdown(ctx)
			return nil, err
		}
		o.ln = ln
		o.serving.Go(o.accept)
		logger.Info("owning the vault's store; other vaultgraph processes on it connect here", "socket", owner.Address(stateDirOf(cfg)), "pid", os.Getpid())
	}
	return o, nil
}

// run is the owner's background work: the first sync, then the indexer
// and the watcher, until ctx ends.
func (o *ownerRole) run(ctx context.Context, opts ownerOptions) {
	// A store that holds the vault's notes from an earlier run answers
	// reads worth having meanwhile (server.FirstSync).
	restoreGC := func() {}
	if n, err := o.a.store.CountNotes(ctx, o.a.primary.Key); err == nil && n > 0 {
		o.firstSync.Warm()
		if opts.warm {
			restoreGC = relaxHeapForWarmStart()
		}
	}
	err := o.a.syncVault(ctx)
	restoreGC()
	if err != nil {
		if opts.fail != nil && ctx.Err() == nil {
			opts.fail(err) // before Finish: a caller waiting on Done sees it
		}
		o.firstSync.Finish()
		return
	}
	// Reads answer once the graph is synced: the first pass of vectors
	// follows in the background, and only a search waits for it.
	o.firstSync.Finish()
	if opts.warm {
		followLiveHeap(ctx, o.logger)
		o.background.Go(func() { o.a.warmWrites(ctx) })
	}
	if opts.index {
		o.background.Go(func() {
			o.a.firstVectors(ctx)
			o.a.runIndexer(ctx)
		})
	}
	if opts.watch {
		if err := o.a.watch(ctx); err != nil {
			o.logger.Error("vault watcher stopped", "err", err)
		}
	}
}

// afterFirstSync runs f in the background once the first sync is done
// (not at all when the owner stops first).
func (o *ownerRole) afterFirstSync(f func(ctx context.Context)) {
	o.background.Go(func() {
		select {
		case <-o.firstSync.Done():
			f(o.bg)
		case <-o.bg.Done():
		}
	})
}

// serverFor returns the MCP server of a tool selection, made at its
// first use. Every server shares the app, the first sync's state, the
// client logs and the resource subscriptions.
func (o *ownerRole) serverFor(sel tools.Selection) (*mcpserver.MCPServer, error) {
	key, _ := json.Marshal(sel)
	o.mu.Lock()
	defer o.mu.Unlock()
	if srv := o.servers[string(key)]; srv != nil {
		return srv, nil
	}
	list, err := tools.Select(o.all, sel)
	if err != nil {
		return nil, err
	}
	a := o.a
	srv := server.New(server.Options{
		Version: versionNumber(), Tools: list, Logger: o.logger, Metrics: o.metrics, ClientLogs: o.logs, FirstSync: o.firstSync,
		Vault: resources.Deps{Project: a.primary.Key, Store: a.store, Files: a.mirror.Writer(), Logger: o.logger, Changes: a.changes,
			Attachments: a.mirror.Writer()},
	})
	o.servers[string(key)] = srv
	return srv, nil
}

// accept serves the socket until it is closed.
func (o *ownerRole) accept() {
	for {
		c, err := o.ln.Accept()
		if err != nil {
			return
		}
		if !o.track(c) {
			_ = c.Close()
			return
		}
		o.serving.Go(func() {
			defer o.untrack(c)
			o.handle(c)
		})
	}
}

func (o *ownerRole) track(c net.Conn) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closing {
		return false
	}
	o.conns[c] = struct{}{}
	return true
}

func (o *ownerRole) untrack(c net.Conn) {
	o.mu.Lock()
	delete(o.conns, c)
	o.mu.Unlock()
	_ = c.Close()
}

// handle serves one connection of another process: its Hello, then MCP,
// or one sync.
func (o *ownerRole) handle(c net.Conn) {
	br := bufio.NewReader(c)
	_ = c.SetReadDeadline(time.Now().Add(helloTimeout))
	var h owner.Hello
	if err := owner.ReadLine(br, &h); err != nil {
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	welcome := owner.Welcome{Protocol: owner.Protocol, PID: os.Getpid(), Version: versionNumber()}
	refuse := func(msg string) {
		welcome.Error = msg
		_ = owner.WriteLine(c, welcome)
	}
	if h.Protocol != owner.Protocol {
		refuse(fmt.Sprintf("this vaultgraph (pid %d, %s) speaks %s, not %s: stop it or use the same version", os.Getpid(), versionNumber(), owner.Protocol, h.Protocol))
		return
	}
	if len(h.Vaults) > 0 && h.Vaults[0] != o.a.mirror.Root() && h.Vaults[0] != o.cfg.ServedProjects()[0].Path {
		o.logger.Warn("a process of another configuration connected: it is served this process's vault", "its_vault", h.Vaults[0], "pid", h.PID)
	}
	switch h.Kind {
	case owner.KindSync:
		stats := o.syncNow()
		welcome.Detail = stats
		_ = owner.WriteLine(c, welcome)
	case owner.KindMCP:
		var sel tools.Selection
		if len(h.Surface) > 0 {
			if err := json.Unmarshal(h.Surface, &sel); err != nil {
				refuse("the tool selection is not understood: " + err.Error())
				return
			}
		} else {
			sel = o.a.selection()
		}
		srv, err := o.serverFor(sel)
		if err != nil {
			refuse(err.Error())
			return
		}
		if err := owner.WriteLine(c, welcome); err != nil {
			return
		}
		o.logger.Debug("a process connected", "pid", h.PID, "version", h.Version)
		o.serveMCP(srv, struct {
			io.Reader
			io.Writer
		}{br, c}, c)
	default:
		refuse(fmt.Sprintf("unknown connection kind %q", h.Kind))
	}
}

// helloTimeout bounds the wait for a connection's Hello.
const helloTimeout = 10 * time.Second

// serveMCP serves srv on rw until the other side ends it, or the owner
// closes it to hand over: then every request read has been answered, and
// the last line says so (server.MethodHandover).
func (o *ownerRole) serveMCP(srv *mcpserver.MCPServer, rw io.ReadWriter, c io.Closer) {
	id := fmt.Sprintf("owner-%d-%d", os.Getpid(), o.seq.Add(1))
	// Requests run under a context the shutdown does not cancel: it stops
	// reading instead (CloseRead), so a request in flight finishes.
	if err := server.ServeStream(context.Background(), srv, rw, rw, id, o.logger); err != nil {
		o.logger.Debug("a connection ended", "err", err)
	}
	o.mu.Lock()
	closing := o.closing
	o.mu.Unlock()
	if closing {
		_, _ = io.WriteString(rw, `{"jsonrpc":"2.0","method":"`+server.MethodHandover+`"}`+"\n")
	}
	_ = c.Close()
}

// pipe connects this process's own front to the owner, in process, as a
// client of the tool selection sel.
func (o *ownerRole) pipe(sel tools.Selection) (io.ReadWriteCloser, error) {
	srv, err := o.serverFor(sel)
	if err != nil {
		return nil, err
	}
	front, back := net.Pipe()
	if !o.track(back) {
		return nil, errors.New("the owner is shutting down")
	}
	o.serving.Go(func() {
		defer o.untrack(back)
		o.serveMCP(srv, back, back)
	})
	return front, nil
}

// syncNow brings the store in line with the vault now (a sync another
// process asked for) and says what it did.
func (o *ownerRole) syncNow() string {
	<-o.firstSync.Done()
	ctx := context.Background()
	for _, m := range o.a.mirrors() {
		st, err := m.Sync(ctx)
		if err != nil {
			return "sync failed: " + err.Error()
		}
		o.logger.Info("synced for another process", "written", st.Written, "deleted", st.Deleted)
	}
	return fmt.Sprintf("synced by the vault's owning process (pid %d)", os.Getpid())
}

// shutdownWait bounds how long the owner waits for the requests in flight
// when it stops.
const shutdownWait = 30 * time.Second

// shutdown stops serving (every connection ends after its requests in
// flight, told to reconnect), stops the background work, closes the store
// and releases the lock, so another process can take over.
func (o *ownerRole) shutdown(ctx context.Context) {
	o.mu.Lock()
	if o.closing {
		o.mu.Unlock()
		return
	}
	o.closing = true
	if o.ln != nil {
		_ = o.ln.Close()
	}
	for c := range o.conns {
		closeRead(c)
	}
	o.mu.Unlock()
	done := make(chan struct{})
	go func() { o.serving.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(shutdownWait):
		o.logger.Warn("stopping with requests still running")
		o.mu.Lock()
		for c := range o.conns {
			_ = c.Close()
		}
		o.mu.Unlock()
	}
	o.stopBackground()
	o.background.Wait()
	o.a.close(ctx)
	o.lock.Release()
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

// dialOwner connects to the state folder's owner as a client of kind
// with the tool selection sel, and returns the connection past the
// owner's Welcome (buffered reads included).
func dialOwner(cfg *config.Config, kind string, sel tools.Selection) (io.ReadWriteCloser, owner.Welcome, error) {
	var w owner.Welcome
	c, err := owner.Dial(stateDirOf(cfg), 2*time.Second)
	if err != nil {
		return nil, w, err
	}
	surface, _ := json.Marshal(sel)
	var vaults []string
	for _, p := range cfg.ServedProjects() {
		vaults = append(vaults, p.Path)
	}
	h := owner.Hello{Protocol: owner.Protocol, Kind: kind, Surface: surface, Vaults: vaults, PID: os.Getpid(), Version: versionNumber()}
	if err := owner.WriteLine(c, h); err != nil {
		_ = c.Close()
		return nil, w, err
	}
	br := bufio.NewReaderSize(c, 64<<10)
	if err := owner.ReadLine(br, &w); err != nil {
		_ = c.Close()
		return nil, w, fmt.Errorf("the owning process did not answer: %w", err)
	}
	if w.Error != "" {
		_ = c.Close()
		return nil, w, &refusedError{msg: w.Error}
	}
	return struct {
		io.Reader
		io.Writer
		io.Closer
	}{br, c, c}, w, nil
}

// refusedError is the owner's refusal of a connection: final.
type refusedError struct{ msg string }

func (e *refusedError) Error() string { return "the vault's owning process refused: " + e.msg }

// connector finds the vault's store for a process: it takes the owner
// lock and becomes the owner when it is free, else connects to the owner
// (retrying while an owner starts or another takes over).
type connector struct {
	cfg    *config.Config
	logger *slog.Logger
	opts   ownerOptions
	// onOwn, when set, is called once this process owns the store (an
	// HTTP front that took it over starts its web view).
	onOwn func(*ownerRole)

	mu  sync.Mutex
	own *ownerRole // set once this process owns the store
}

// connectRetry is the longest pause between two attempts to find the
// owner.
const connectRetry = 200 * time.Millisecond

// attempt takes the lock or connects once, as a client of the tool
// selection sel; all nil: try again.
func (c *connector) attempt(ctx context.Context, kind string, sel tools.Selection) (own *ownerRole, conn io.ReadWriteCloser, w owner.Welcome, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.own != nil {
		return c.own, nil, w, nil
	}
	lock, err := owner.TryLock(stateDirOf(c.cfg))
	switch {
	case err == nil:
		own, err := becomeOwner(ctx, c.cfg, c.logger, lock, c.opts)
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
	conn, w, err = dialOwner(c.cfg, kind, sel)
	if err != nil {
		var refused *refusedError
		if errors.As(err, &refused) {
			return nil, nil, w, err
		}
		return nil, nil, w, nil // the owner is starting or leaving: again
	}
	return nil, conn, w, nil
}

// find returns this process's own owner role or a connection to the
// owner as a client of the configuration's tool selection, trying until
// ctx ends.
func (c *connector) find(ctx context.Context, kind string) (*ownerRole, io.ReadWriteCloser, owner.Welcome, error) {
	return c.findAs(ctx, kind, selectionOf(c.cfg))
}

// findAs is find as a client of the tool selection sel.
func (c *connector) findAs(ctx context.Context, kind string, sel tools.Selection) (*ownerRole, io.ReadWriteCloser, owner.Welcome, error) {
	pause := 10 * time.Millisecond
	for {
		own, conn, w, err := c.attempt(ctx, kind, sel)
		if err != nil || own != nil || conn != nil {
			return own, conn, w, err
		}
		select {
		case <-ctx.Done():
			return nil, nil, w, ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, connectRetry)
	}
}

// connect is server.Connect for a relay: the owner's socket, or this
// process's own server once it owns the store.
func (c *connector) connect(ctx context.Context) (io.ReadWriteCloser, error) {
	return c.connectAs(selectionOf(c.cfg))(ctx)
}

// connectAs is connect as a client of the tool selection sel (an HTTP
// front's read-only tokens are served the read tools only).
func (c *connector) connectAs(sel tools.Selection) server.Connect {
	return func(ctx context.Context) (io.ReadWriteCloser, error) {
		own, conn, w, err := c.findAs(ctx, owner.KindMCP, sel)
		if err != nil {
			return nil, err
		}
		if own != nil {
			return own.pipe(sel)
		}
		c.logger.Info("serving through the vault's owning process", "pid", w.PID, "version", w.Version, "read_only", sel.ReadOnly)
		return conn, nil
	}
}

// owned returns the owner role this process took, if any.
func (c *connector) owned() *ownerRole {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.own
}

// stop shuts the owner role down, if this process took it.
func (c *connector) stop(ctx context.Context) {
	if own := c.owned(); own != nil {
		own.shutdown(ctx)
	}
}

// waitLock takes dir's owner lock, waiting while another process holds
// it (a sync --watch worker must own the store).
func waitLock(ctx context.Context, dir string, logger *slog.Logger) (*owner.Lock, error) {
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
