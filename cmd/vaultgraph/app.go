package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/kb"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/neo4jstore"
	"github.com/vaultgraph/vaultgraph/tools"
	"github.com/vaultgraph/vaultgraph/tools/graph"
	kbtools "github.com/vaultgraph/vaultgraph/tools/kb"
	"github.com/vaultgraph/vaultgraph/vault"
)

// defaultProject is the project key of the single configured vault. Every
// node carries it, so one Neo4j database can later hold several vaults.
const defaultProject = "default"

// app is what the serving commands share: the store, the vault mirror
// that keeps it equal to the vault, and the services the tools call.
type app struct {
	cfg    *config.Config
	logger *slog.Logger
	store  core.Store
	mirror *vault.Mirror
	graph  *core.GraphService
	search search // semantic search; zero without an embedding provider
}

// openStore opens the configured store: the embedded one in the state
// directory, or Neo4j.
func openStore(ctx context.Context, cfg *config.Config, logger *slog.Logger) (core.Store, error) {
	switch cfg.Store {
	case config.StoreNeo4j:
		s, err := neo4jstore.Open(ctx, neo4jstore.Config{
			URI:            cfg.Neo4j.URI,
			User:           cfg.Neo4j.User,
			Password:       cfg.Neo4j.Password.Reveal(),
			Database:       cfg.Neo4j.Database,
			MaxConnections: cfg.Neo4j.MaxConnections,
			Timeout:        cfg.Neo4j.Timeout,
			Logger:         logger,
		})
		if err != nil {
			return nil, fmt.Errorf("open neo4j store at %s: %w", cfg.Neo4j.URI, err)
		}
		return s, nil
	default:
		dir := vaultStateDir(cfg.StateDir, cfg.Vault)
		s, err := memstore.Open(dir)
		if err != nil {
			return nil, fmt.Errorf("open embedded store in %s: %w", dir, err)
		}
		return s, nil
	}
}

// openApp opens the store and the vault mirror and builds the services.
// Nothing is synced yet: see syncVault.
func openApp(ctx context.Context, cfg *config.Config, logger *slog.Logger) (*app, error) {
	store, err := openStore(ctx, cfg, logger)
	if err != nil {
		return nil, err
	}
	sem, err := newSearch(cfg, store, logger)
	if err != nil {
		_ = store.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	mirror, err := vault.NewMirror(vault.Config{
		Root:    cfg.Vault,
		Project: defaultProject,
		Store:   sem.mirrorStore(store),
		Ignore:  cfg.Ignore,
		Logger:  logger,
	})
	if err != nil {
		_ = store.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("open vault %s: %w", cfg.Vault, err)
	}
	svc := core.NewGraphService(defaultProject, store, mirror.Writer(), append(sem.graphOptions(),
		core.WithWarnings(core.WarningSourceFunc(mirror.Warnings().Drain)))...)
	return &app{cfg: cfg, logger: logger, store: store, mirror: mirror, graph: svc, search: sem}, nil
}

// syncVault brings the store in line with the vault once. A store that is
// down is logged and left to the watcher, which retries: the server still
// starts and answers PROVIDER_ERROR until the store is back.
func (a *app) syncVault(ctx context.Context) error {
	if _, err := a.mirror.Sync(ctx); err != nil {
		if core.IsProviderError(err) && !errors.Is(err, context.Canceled) {
			a.logger.Warn("initial sync could not reach the store; changes stay queued", "err", err)
			return nil
		}
		return fmt.Errorf("sync %s: %w", a.cfg.Vault, err)
	}
	return nil
}

// tools returns the tools the configuration enables. Call it after the
// first sync: the vault's writer refuses writes until then.
func (a *app) tools() ([]tools.Tool, error) {
	all := graph.Tools(graph.NewDeps(a.graph, a.logger))
	kbSvc, err := kb.New(kb.Config{Root: a.mirror.Root(), Files: a.mirror.Writer(), Logger: a.logger})
	if err != nil {
		return nil, fmt.Errorf("knowledge bases in %s: %w", a.cfg.Vault, err)
	}
	all = append(all, kbtools.Tools(kbtools.NewDeps(kbSvc, a.logger))...)
	return tools.Select(all, tools.Selection{
		Toolsets: a.cfg.Toolsets,
		ReadOnly: a.cfg.ReadOnly,
		Renames:  a.cfg.ToolRenames,
	})
}

// close releases the store.
func (a *app) close(ctx context.Context) {
	if err := a.store.Close(context.WithoutCancel(ctx)); err != nil {
		a.logger.Warn("closing the store", "err", err)
	}
}

// vaultStateDir is the embedded store's folder for one vault inside the
// state directory: the vault folder's name plus a hash of its absolute path,
// so several vaults never share (or lock each other out of) one state file.
func vaultStateDir(stateDir, vaultPath string) string {
	sum := sha256.Sum256([]byte(vaultPath))
	name := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, filepath.Base(vaultPath))
	return filepath.Join(stateDir, name+"-"+hex.EncodeToString(sum[:4]))
}
