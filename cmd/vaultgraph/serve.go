package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/metrics"
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
http.max_sessions_per_token). http.tls_cert and http.tls_key serve HTTPS;
--metrics-addr serves Prometheus metrics at ADDR/metrics. ADDR/view/ is the
web view of the vault (see vaultgraph view): a browser logs in with one of the
same tokens (a read-only token opens a read-only view); without tokens, on
loopback, it is open as /mcp is.

Unless --watch=false, serve keeps the store in sync with the vault as files
change. The vault (or projects, see docs/ENTITIES.md) is required.

At start serve syncs the vault into the store (only changed notes are written)
before it answers; a store that is down does not stop it: tools answer
PROVIDER_ERROR until the store is back, and queued changes are applied then.
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

// serve runs the MCP server until ctx ends: sync, then watch the vault in
// the background while a transport answers clients. Over HTTP it listens
// before the first sync, so that a port in use fails at once and /healthz
// answers from the first moment (/readyz and /mcp say it is starting).
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

	var appOpts []appOption
	if m != nil {
		appOpts = append(appOpts, withObserver(m))
	}
	a, err := openApp(ctx, cfg, logger, appOpts...)
	if err != nil {
		return err
	}
	defer a.close(ctx)
	if err := a.syncVault(ctx); err != nil {
		return err
	}
	a.indexNow(ctx, firstPassBudget, false)
	toolList, err := a.tools()
	if err != nil {
		return err
	}
	srv := server.New(server.Options{
		Version: versionNumber(), Tools: toolList, Logger: logger, Metrics: m, ClientLogs: clientLogs,
		Vault: resources.Deps{Project: a.primary.Key, Store: a.store, Files: a.mirror.Writer(), Logger: logger, Changes: a.changes,
			Attachments: a.mirror.Writer()},
	})

	// Background work: the watcher and the indexer, stopped and awaited
	// when serving ends.
	var background sync.WaitGroup
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer func() { stopWatch(); background.Wait() }()
	background.Go(func() { a.runIndexer(watchCtx) })
	background.Go(func() {
		if !cfg.Watch {
			return
		}
		if err := a.watch(watchCtx); err != nil {
			logger.Error("vault watcher stopped", "err", err)
		}
	})

	if httpSrv == nil {
		return server.ServeStdio(ctx, srv, s.in, s.out, logger)
	}
	httpSrv.Attach(srv)
	v, err := a.startView(watchCtx, &background, viewAuth(cfg, httpSrv))
	if err != nil {
		return err
	}
	viewGate.Set(v.Handler())
	ready.Store(a)
	// Serve returns once ctx ends and the requests it accepted are
	// answered: only then may the deferred close release the store they
	// read (the race detector caught a shutdown closing Neo4j's pool under
	// a get_node still running).
	err = <-served
	served <- err // for the deferred wait
	return err
}

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
