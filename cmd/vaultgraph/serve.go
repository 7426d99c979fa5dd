package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/metrics"
	"github.com/vaultgraph/vaultgraph/owner"
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
http.max_sessions_per_token). http.tls_cert and http.tls_key serve HTTPS;
--metrics-addr serves Prometheus metrics at ADDR/metrics. ADDR/view/ is the
web view of the vault (see vaultgraph view): a browser logs in with one of the
same tokens (a read-only token opens a read-only view); without tokens, on
loopback, it is open as /mcp is.

Unless --watch=false, serve keeps the store in sync with the vault as files
change. The vault (or projects, see docs/ENTITIES.md) is required.

With the embedded store, several processes may serve one vault: the first owns the
store (it holds the lock in the vault's state folder) and the others relay their
clients to it through the socket owner.sock there; when it exits or is killed,
another takes over and its clients carry on. serve --http waits to own the store.

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
// answers from the first moment; /readyz says when the first sync is done.
func serve(ctx context.Context, cfg *config.Config, logger *slog.Logger, s streams) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Log lines also go to the MCP clients that ask (logging/setLevel).
	clientLogs := server.NewClientLogs()
	logger = slog.New(clientLogs.Handler(logger.Handler(), redactAttr))
	var m *metrics.Metrics
	if cfg.Metrics.Addr != "" {
		m = metrics.New()
		if _, err := m.Serve(ctx, cfg.Metrics.Addr, logger); err != nil {
			return err
		}
	}
	var (
		ready    atomic.Pointer[app] // set once the first sync is done
		httpSrv  *server.HTTPServer
		served   = make(chan error, 1)
		viewGate view.Gate // the web view at /view, once the first sync is done
	)
	if cfg.HTTP.Addr != "" {
		var err error
		opts := httpOptions(cfg, m, logger, func(ctx context.Context) error {
			a := ready.Load()
			if a == nil {
				return errors.New("the first sync of the vault is running")
			}
			ctx, cancel := context.WithTimeout(ctx, readyTimeout)
			defer cancel()
			_, err := a.store.CountNotes(ctx, a.primary.Key)
			return err
		})
		opts.Mounts = map[string]http.Handler{view.PathPrefix: &viewGate}
		httpSrv, err = server.NewHTTPServer(nil, opts)
		if err != nil {
			return err
		}
		var lc net.ListenConfig
		ln, err := lc.Listen(ctx, "tcp", cfg.HTTP.Addr)
		if err != nil {
			return fmt.Errorf("listen on %s: %w", cfg.HTTP.Addr, err)
		}
		go func() { served <- httpSrv.Serve(ctx, ln) }()
		defer func() {
			cancel()
			<-served
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
	if httpSrv == nil && shared(cfg) {
		return firstErr(serveStdioShared(ctx, cfg, logger, s, opts))
	}
	var lock *owner.Lock
	if shared(cfg) {
		// An HTTP server owns the store: it waits while another
		// process does (its /healthz answers, /mcp says it is starting).
		var err error
		if lock, err = waitLock(ctx, stateDirOf(cfg), logger); err != nil {
			return err
		}
	}
	own, err := becomeOwner(ctx, cfg, logger, lock, opts)
	if err != nil {
		lock.Release()
		return err
	}
	defer own.shutdown(ctx)
	srv, err := own.serverFor(own.a.selection())
	if err != nil {
		return err
	}
	if httpSrv == nil {
		return firstErr(server.ServeStdio(ctx, srv, s.in, s.out, logger))
	}
	// Once the first sync is done: the web view (it lays the graph out
	// from the store), then /readyz.
	own.afterFirstSync(func(ctx context.Context) {
		v, err := own.a.startView(ctx, &own.background, viewAuth(cfg, httpSrv))
		if err != nil {
			logger.Error("web view not started", "err", err)
		} else {
			viewGate.Set(v.Handler())
		}
		ready.Store(own.a)
	})
	httpSrv.Attach(srv)
	// Serve returns once ctx ends and the requests it accepted are
	// answered: only then may the deferred shutdown close the store they
	// read (the race detector caught a shutdown closing Neo4j's pool under
	// a get_node still running).
	err = <-served
	served <- err // for the deferred wait
	return firstErr(err)
}

// serveStdioShared serves stdio on a store shared with other processes:
// as its owner when this process takes the lock first (stdio is then
// served directly), else through a relay to the owner, which makes this
// process the owner when the one it reached goes away.
func serveStdioShared(ctx context.Context, cfg *config.Config, logger *slog.Logger, s streams, opts ownerOptions) error {
	c := &connector{cfg: cfg, logger: logger, opts: opts}
	defer c.stop(context.WithoutCancel(ctx))
	own, conn, w, err := c.attempt(ctx, owner.KindMCP)
	if err != nil {
		return err
	}
	if own != nil {
		srv, err := own.serverFor(own.a.selection())
		if err != nil {
			return err
		}
		return server.ServeStdio(ctx, srv, s.in, s.out, logger)
	}
	connect := c.connect
	if conn != nil {
		logger.Info("serving through the vault's owning process", "pid", w.PID, "version", w.Version)
		first := conn
		connect = func(ctx context.Context) (io.ReadWriteCloser, error) {
			if first != nil { // the relay connects first, once, on its own goroutine
				conn := first
				first = nil
				return conn, nil
			}
			return c.connect(ctx)
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
		Addr:                cfg.HTTP.Addr,
		Tokens:              tokens,
		AllowedOrigins:      cfg.HTTP.AllowedOrigins,
		AllowedHosts:        cfg.HTTP.AllowedHosts,
		SessionIdleTimeout:  cfg.HTTP.SessionIdleTimeout,
		MaxSessions:         cfg.HTTP.MaxSessions,
		MaxSessionsPerToken: cfg.HTTP.MaxSessionsPerToken,
		TLSCert:             cfg.HTTP.TLSCert,
		TLSKey:              cfg.HTTP.TLSKey,
		Ready:               ready,
		Metrics:             m,
		Logger:              logger,
	}
}
