package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/metrics"
	"github.com/vaultgraph/vaultgraph/owner"
	"github.com/vaultgraph/vaultgraph/resources"
	"github.com/vaultgraph/vaultgraph/server"
	"github.com/vaultgraph/vaultgraph/view"
)

func newServeCommand(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the vault's graph to MCP clients over stdio or HTTP",
		Long: `serve exposes the vault's graph to MCP clients through the enabled toolsets
(--toolsets; --read-only hides every tool that writes).

Without --http it speaks MCP over stdio: stdin and stdout carry JSON-RPC, logs
go to stderr. This is how a desktop client (Claude Desktop) runs it.

With --http ADDR it serves streamable HTTP at ADDR/mcp for many clients;
clients send "Authorization: Bearer TOKEN" with a token from http.tokens (env
VAULTGRAPH_HTTP_TOKENS; a token configured as ro:TOKEN gets read-only tools and
is sent without the ro: prefix). /healthz answers from the start, /readyz once
the first sync is done and the store answers. Sessions are bound to their token,
closed after http.session_idle_timeout unused and capped (http.max_sessions,
http.max_sessions_per_token, http.max_sessions_per_client). http.tls_cert and
http.tls_key serve HTTPS; --metrics-addr serves Prometheus metrics at
ADDR/metrics (a port alone: on 127.0.0.1; off loopback metrics.token is
required). ADDR/view/ is the
web view of the vault (see vaultgraph view): a browser logs in with one of the
same tokens (a read-only token opens a read-only view); without tokens, on
loopback, it is open as /mcp is.

Unless --watch=false, serve keeps the store in sync with the vault as files
change. The vault (or projects, see docs/ENTITIES.md) is required.

With the embedded store, several processes may serve one vault: the first owns the
store (it holds the lock in the vault's state folder) and the others relay their
clients to it through its socket (owner.sock there, or in a folder of the user's
alone when that path is too long; the lock file names it); when it exits or is killed,
another takes over and its clients carry on. This holds for serve --http too: beside
an owner it listens at once and serves its HTTP clients through the owner (a
read-only token's calls through a connection that gets the read tools only), and
takes the store over when the owner goes, its HTTP sessions carrying on; its /readyz
says whether the owner answers, and its /view/ says the view is the owner's until it
owns the store itself.

serve answers at once (initialize in milliseconds at any vault size) and syncs
the vault into the store in the background (only changed notes are written).
Until that first sync is done, a read tool waits for it (at most 2 s when the
store holds the notes of an earlier run, else at most 15 s, with progress
notifications when the request carries a progress token) and then answers from
the store as last synced, with a notice in _warnings; a write waits for the
sync too (a write to the vault at most 20 s, then PROVIDER_ERROR: nothing written;
retry). A store that is
down does not stop serve: tools answer PROVIDER_ERROR until the store is back,
and queued changes are applied then.
SIGINT or SIGTERM shuts it down gracefully.`,
		Example: `  # stdio, embedded store (e.g. command "vaultgraph", args ["serve", "--vault", "/home/me/notes"])
  vaultgraph serve --vault ~/notes

  # streamable HTTP next to Neo4j; secrets from the environment
  VAULTGRAPH_NEO4J_PASSWORD=... VAULTGRAPH_HTTP_TOKENS=s3cret,ro:r3ader \
    vaultgraph serve --store neo4j --vault /srv/vault --http :8080`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, logger, err := loadConfig(cmd, s, true)
			if err != nil {
				return err
			}
			return serve(cmd.Context(), cfg, logger, s)
		},
	}
	config.AddFlags(cmd.Flags(), config.FlagServe)
	return cmd
}

// serve runs the MCP server until ctx ends. It answers at once, at any
// vault size: the store and the tools are opened (nothing is read from the
// vault), the transport starts, and the first sync runs in the background
// (server.FirstSync says how tools answer meanwhile). Over HTTP it listens
// before anything else, so that a port in use fails at once and /healthz
// answers from the first moment; /readyz says when it can answer.
func serve(ctx context.Context, cfg *config.Config, logger *slog.Logger, s streams) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Log lines also go to the MCP clients that ask (logging/setLevel).
	clientLogs := server.NewClientLogs()
	logger = slog.New(clientLogs.Handler(logger.Handler(), redactAttr))
	var m *metrics.Metrics
	if cfg.Metrics.Addr != "" {
		m = metrics.New()
		if _, err := m.Serve(ctx, config.MetricsAddr(cfg.Metrics.Addr), cfg.Metrics.Token.Reveal(), logger); err != nil {
			return err
		}
	}
	var front *httpFront
	if cfg.HTTP.Addr != "" {
		front = &httpFront{cfg: cfg, logger: logger, served: make(chan error, 1)}
		opts := httpOptions(cfg, m, logger, front.isReady)
		opts.Mounts = map[string]http.Handler{view.PathPrefix: &front.view}
		var err error
		front.srv, err = server.NewHTTPServer(nil, opts)
		if err != nil {
			return err
		}
		var lc net.ListenConfig
		ln, err := lc.Listen(ctx, "tcp", cfg.HTTP.Addr)
		if err != nil {
			return fmt.Errorf("listen on %s: %w", cfg.HTTP.Addr, err)
		}
		go func() { front.served <- front.srv.Serve(ctx, ln) }()
		defer func() {
			cancel()
			<-front.served
		}()
	}

	syncErr := make(chan error, 1)
	opts := ownerOptions{watch: cfg.Watch, index: true, warm: true, metrics: m, clientLogs: clientLogs, fail: func(err error) {
		select {
		case syncErr <- err:
		default:
		}
		cancel()
	}}
	firstErr := func(err error) error {
		select {
		case e := <-syncErr:
			return e
		default:
			return err
		}
	}
	switch {
	case front == nil && shared(cfg):
		return firstErr(serveStdioShared(ctx, cfg, logger, s, opts))
	case front != nil && shared(cfg):
		return firstErr(front.serveShared(ctx, opts))
	}
	own, err := becomeOwner(ctx, cfg, logger, nil, opts)
	if err != nil {
		return err
	}
	defer own.Shutdown(ctx)
	if front == nil {
		srv, err := own.ServerFor(own.App().selection())
		if err != nil {
			return err
		}
		return firstErr(server.ServeStdio(ctx, srv, s.in, s.out, logger))
	}
	return firstErr(front.serveAsOwner(own))
}

// httpFront is serve --http: the HTTP transport, which listens from the
// start, and what it serves once the store is reached (as its owner, or
// through the owner's socket).
type httpFront struct {
	cfg    *config.Config
	logger *slog.Logger
	srv    *server.HTTPServer
	served chan error                                  // Serve's end; the value is put back for serve's deferred wait
	view   view.Gate                                   // the web view at /view/
	ready  atomic.Pointer[func(context.Context) error] // /readyz's check, once there is one
}

// isReady is /readyz's question.
func (f *httpFront) isReady(ctx context.Context) error {
	check := f.ready.Load()
	if check == nil {
		return errors.New("the vault's store is being opened")
	}
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	return (*check)(ctx)
}

// wait returns once Serve has: ctx ended and the requests it accepted are
// answered. Only then may the deferred shutdown close the store they read
// (the race detector caught a shutdown closing Neo4j's pool under a
// get_node still running).
func (f *httpFront) wait() error {
	err := <-f.served
	f.served <- err // for serve's deferred wait
	return err
}

// serveAsOwner serves own's MCP server, and, once the first sync is
// done, the web view; /readyz is ready after both.
func (f *httpFront) serveAsOwner(own *ownerRole) error {
	srv, err := own.ServerFor(own.App().selection())
	if err != nil {
		return err
	}
	f.startView(own, func() {
		check := ownerReady(own)
		f.ready.Store(&check)
	})
	f.srv.Attach(srv)
	return f.wait()
}

// startView starts the web view once own's first sync is done, then runs
// then (nil: nothing).
func (f *httpFront) startView(own *ownerRole, then func()) {
	afterFirstSync(own, func(context.Context) {
		v, err := startView(own, viewAuth(f.cfg, f.srv))
		if err != nil {
			f.logger.Error("web view not started", "err", err)
		} else {
			f.view.Set(v.Handler())
		}
		if then != nil {
			then()
		}
	})
}

// ownerReady is /readyz's check of a process that owns the store: its
// first sync is done and the store answers.
func ownerReady(own *ownerRole) func(context.Context) error {
	return func(ctx context.Context) error {
		select {
		case <-own.App().firstSync.Done():
		default:
			return errors.New("the first sync of the vault is running")
		}
		a := own.App()
		_, err := a.store.CountNotes(ctx, a.primary.Key)
		return err
	}
}

// serveShared serves HTTP on a store shared with other processes: as its
// owner when this process takes the lock first, else through the owner's
// socket (server.Forward: every MCP session of the front is served by the
// owner, a read-only token's by a connection that asks for the read tools
// only), which makes this process the owner when the one it reached goes
// away; its HTTP clients carry on.
func (f *httpFront) serveShared(ctx context.Context, opts ownerOptions) error {
	c := newConnector(f.cfg, f.logger, opts)
	defer c.Stop(context.WithoutCancel(ctx))
	sel := selectionOf(f.cfg)
	own, conn, w, err := c.Find(ctx, owner.KindMCPFront, sel)
	if err != nil {
		return err
	}
	if own != nil {
		return f.serveAsOwner(own)
	}
	f.logger.Info("serving through the vault's owning process", "pid", w.PID, "version", w.Version, "http", true)
	f.view.Set(view.Relayed(w.PID))
	c.OnOwn(func(own *ownerRole) {
		f.logger.Info("took over the vault's store; the HTTP clients carry on")
		f.startView(own, nil)
	})
	var (
		mu    sync.Mutex
		first = conn // the read-write backend's first connection
	)
	connect := func(readOnly bool) server.Connect {
		s := sel
		s.ReadOnly = s.ReadOnly || readOnly
		next := c.ConnectFront(s)
		if readOnly {
			return next
		}
		return func(ctx context.Context) (io.ReadWriteCloser, error) {
			mu.Lock()
			conn := first
			first = nil
			mu.Unlock()
			if conn != nil {
				return conn, nil
			}
			return next(ctx)
		}
	}
	fopts := server.ForwardOptions{Connect: connect, Version: versionNumber(), Logger: f.logger, Metrics: opts.metrics, ClientLogs: opts.clientLogs,
		Canonical: resources.CanonicalURI, MaxSubscriptions: f.cfg.Resources.MaxSubscriptions}
	// An owner killed while the front lists its tools fails the listing
	// (the request is answered as lost): the front starts again, with the
	// next owner or as the owner.
	var fwd *server.Forward
	for attempt := 1; ; attempt++ {
		fwd, err = server.NewForward(ctx, fopts)
		if err == nil {
			break
		}
		mu.Lock()
		if first != nil {
			_ = first.Close()
			first = nil
		}
		mu.Unlock()
		if ctx.Err() != nil || attempt == forwardAttempts {
			return err
		}
		f.logger.Warn("could not start serving through the vault's owning process; trying again", "err", err, "attempt", attempt)
	}
	defer fwd.Close()
	check := func(ctx context.Context) error {
		if own := c.Owned(); own != nil {
			return ownerReady(own)(ctx)
		}
		return fwd.Ready(ctx)
	}
	f.ready.Store(&check)
	f.srv.Attach(fwd.Server())
	return f.wait()
}

// forwardAttempts bounds the starts of an HTTP front's forwarding server
// (each waits up to 30 s for an owner to answer).
const forwardAttempts = 5

// serveStdioShared serves stdio on a store shared with other processes:
// as its owner when this process takes the lock first (stdio is then
// served directly), else through a relay to the owner, which makes this
// process the owner when the one it reached goes away.
func serveStdioShared(ctx context.Context, cfg *config.Config, logger *slog.Logger, s streams, opts ownerOptions) error {
	c := newConnector(cfg, logger, opts)
	defer c.Stop(context.WithoutCancel(ctx))
	sel := selectionOf(cfg)
	own, conn, w, err := c.Attempt(ctx, owner.KindMCP, sel)
	if err != nil {
		return err
	}
	if own != nil {
		srv, err := own.ServerFor(own.App().selection())
		if err != nil {
			return err
		}
		return server.ServeStdio(ctx, srv, s.in, s.out, logger)
	}
	connect := c.ConnectAs(sel)
	if conn != nil {
		logger.Info("serving through the vault's owning process", "pid", w.PID, "version", w.Version)
		first := conn
		connect = func(ctx context.Context) (io.ReadWriteCloser, error) {
			if first != nil { // the relay connects first, once, on its own goroutine
				conn := first
				first = nil
				return conn, nil
			}
			return c.ConnectAs(sel)(ctx)
		}
	}
	return server.RunRelay(ctx, connect, s.in, s.out, logger)
}

// firstSyncWriteWait bounds how long a write to the vault waits for the
// first sync in the vault's writer, after the server's gate waited
// server.FirstSyncWait, before it is refused with a provider error
// (nothing written; the client may retry): no call waits more than 20 s.
const firstSyncWriteWait = 5 * time.Second

// readyTimeout bounds /readyz's question to the store.
const readyTimeout = 5 * time.Second

// httpOptions maps the configuration onto the HTTP transport's options.
func httpOptions(cfg *config.Config, m *metrics.Metrics, logger *slog.Logger, ready func(context.Context) error) server.HTTPOptions {
	tokens := make([]server.Token, 0, len(cfg.HTTP.Tokens))
	for _, t := range cfg.HTTP.Tokens {
		tokens = append(tokens, server.Token{Value: t.Value.Reveal(), ReadOnly: t.ReadOnly})
	}
	return server.HTTPOptions{
		Addr:                 cfg.HTTP.Addr,
		Tokens:               tokens,
		AllowedOrigins:       cfg.HTTP.AllowedOrigins,
		AllowedHosts:         cfg.HTTP.AllowedHosts,
		SessionIdleTimeout:   cfg.HTTP.SessionIdleTimeout,
		MaxSessions:          cfg.HTTP.MaxSessions,
		MaxSessionsPerToken:  cfg.HTTP.MaxSessionsPerToken,
		MaxSessionsPerClient: cfg.HTTP.MaxSessionsPerClient,
		TLSCert:              cfg.HTTP.TLSCert,
		TLSKey:               cfg.HTTP.TLSKey,
		OAuth: server.OAuthOptions{
			Issuer:      cfg.HTTP.OAuth.Issuer,
			Audience:    cfg.HTTP.OAuth.Audience,
			ReadScope:   cfg.HTTP.OAuth.ReadScope,
			WriteScope:  cfg.HTTP.OAuth.WriteScope,
			Resource:    cfg.HTTP.OAuth.Resource,
			BehindProxy: cfg.HTTP.BehindProxy,
		},
		Ready:   ready,
		Metrics: m,
		Logger:  logger,
	}
}
