package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding"
	"github.com/vaultgraph/vaultgraph/semantic"
)

// firstPassBudget bounds how long serve and sync --watch wait for the
// first embedding pass before answering: the built-in model embeds a large
// vault within it; a remote model that needs longer finishes in the
// background (batches are stored as they complete) while search already
// works on what is embedded, plus keyword relevance for the rest.
const firstPassBudget = 20 * time.Second

// search is semantic search wired for one store: nil fields when no
// embedding provider is configured.
type search struct {
	embedder core.Embedder // nil without a provider; shared by every toolset
	indexer  *semantic.Indexer
	searcher *semantic.Searcher
}

// newSearch builds the configured embedder and, unless it is "none", the
// indexer and searcher over store.
func newSearch(cfg *config.Config, project string, store core.StoreProvider, logger *slog.Logger) (search, error) {
	e := cfg.Embedding
	embedder, err := embedding.New(e.Provider, e.URL, e.Model, e.APIKey.Reveal(), embedding.WithLogger(logger))
	if err != nil {
		return search{}, fmt.Errorf("embedding provider %s: %w", e.Provider, err)
	}
	if embedder == nil {
		return search{}, nil
	}
	indexer, err := semantic.NewIndexer(semantic.IndexerConfig{
		Project: project, Store: store, Embedder: embedder, Logger: logger,
	})
	if err != nil {
		return search{}, err
	}
	searcher, err := semantic.NewSearcher(project, store, embedder, logger)
	if err != nil {
		return search{}, err
	}
	return search{embedder: embedder, indexer: indexer, searcher: searcher}, nil
}

// mirrorStore is the store the vault mirror writes through: it wakes the
// indexer whenever notes are written.
func (s search) mirrorStore(store core.StoreProvider) core.GraphStore {
	if s.indexer == nil {
		return store
	}
	return semantic.NewNotifyingStore(store, s.indexer.Notify)
}

// graphOptions enables semantic search in the graph service.
func (s search) graphOptions() []core.GraphOption {
	if s.searcher == nil {
		return nil
	}
	return []core.GraphOption{core.WithSearcher(s.searcher)}
}

// indexNow embeds every stale note, waiting at most budget (0: no bound).
// A failure is logged, not returned: search still answers with what is
// embedded, and a running indexer retries.
func (a *app) indexNow(ctx context.Context, budget time.Duration) {
	if a.search.indexer == nil {
		return
	}
	if budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, budget)
		defer cancel()
	}
	_, err := a.search.indexer.IndexStale(ctx)
	switch {
	case err == nil:
	case errors.Is(err, context.DeadlineExceeded) && budget > 0:
		a.logger.Info("semantic: embedding continues in the background", "waited_s", budget.Seconds())
	case ctx.Err() != nil:
	default:
		a.logger.Warn("semantic: embedding notes failed; search sees what is embedded", "err", err)
	}
}

// runIndexer keeps embeddings current until ctx ends; call it in a
// goroutine. It is a no-op without an embedding provider.
func (a *app) runIndexer(ctx context.Context) {
	if a.search.indexer == nil {
		return
	}
	_ = a.search.indexer.Run(ctx) // returns nil when ctx ends; failures are logged and retried
}
