package main

import (
	"context"
	"log/slog"
	"sync"

	"github.com/spf13/cobra"
	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/server"
)

func newServeCommand(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the vault's graph to MCP clients over stdio or HTTP",
		Long: `serve exposes the vault's graph to MCP clients through the enabled toolsets
(--toolsets; --read-only hides every tool that writes).

Without --http it speaks MCP over stdio: stdin and stdout carry JSON-RPC, logs
go to stderr. This is how a desktop client (Claude Desktop) runs it.

With --http ADDR it serves streamable HTTP at ADDR for many clients; clients
authenticate with a bearer token from http.tokens (env VAULTGRAPH_HTTP_TOKENS;
a token starting with ro: gets read-only tools).

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
// the background while a transport answers clients.
func serve(ctx context.Context, cfg *config.Config, logger *slog.Logger, s streams) error {
	a, err := openApp(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer a.close(ctx)
	if err := a.syncVault(ctx); err != nil {
		return err
	}
	a.indexNow(ctx, firstPassBudget)
	toolList, err := a.tools()
	if err != nil {
		return err
	}
	srv := server.New(server.Options{Version: versionNumber(), Tools: toolList, Logger: logger})

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

	if cfg.HTTP.Addr == "" {
		return server.ServeStdio(ctx, srv, s.in, s.out, logger)
	}
	tokens := make([]server.Token, 0, len(cfg.HTTP.Tokens))
	for _, t := range cfg.HTTP.Tokens {
		tokens = append(tokens, server.Token{Value: t.Value.Reveal(), ReadOnly: t.ReadOnly})
	}
	h, err := server.NewHTTPServer(srv, server.HTTPOptions{
		Addr:   cfg.HTTP.Addr,
		Tokens: tokens,
		Health: func(ctx context.Context) error {
			_, err := a.store.CountNotes(ctx, a.primary.Key)
			return err
		},
		Logger: logger,
	})
	if err != nil {
		return err
	}
	return h.ListenAndServe(ctx)
}
