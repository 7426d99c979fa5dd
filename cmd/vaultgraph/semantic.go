package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
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

// progressFileName is the file in the vault's state folder where the
// indexer records its progress with the embedder's model, for status.
const progressFileName = "embedding-progress.json"

// search is semantic search wired for one store: nil fields when no
// embedding provider is configured.
type search struct {
	embedder core.Embedder // nil without a provider; shared by every toolset
	fast     core.Embedder // the built-in provider's fast tier (static table); nil otherwise
	indexer  *semantic.Indexer
	searcher *semantic.Searcher
}

// newSearch builds the configured embedder (and its fast tier, if it has
// one) and, unless it is "none", the indexer and searcher over store. The
// indexer records its progress in stateDir (status reads it; "" keeps it
// in the log only).
func newSearch(cfg *config.Config, project string, store core.StoreProvider, stateDir string, logger *slog.Logger) (search, error) {
	e := cfg.Embedding
	embedder, err := embedding.New(e.Provider, e.URL, e.Model, e.APIKey.Reveal(), embedding.WithLogger(logger))
	if err != nil {
		return search{}, fmt.Errorf("embedding provider %s: %w", e.Provider, err)
	}
	if embedder == nil {
		return search{}, nil
	}
	fast, err := embedding.NewFast(e.Provider, e.Model)
	if err != nil {
		return search{}, fmt.Errorf("embedding provider %s: %w", e.Provider, err)
	}
	icfg := semantic.IndexerConfig{Project: project, Store: store, Embedder: embedder, Fast: fast, Logger: logger}
	if stateDir != "" {
		icfg.OnProgress = func(p semantic.Progress) { writeProgress(stateDir, p, logger) }
	}
	indexer, err := semantic.NewIndexer(icfg)
	if err != nil {
		return search{}, err
	}
	var opts []semantic.SearcherOption
	if fast != nil {
		opts = append(opts, semantic.WithFastTier(fast, indexer.Pending))
	}
	searcher, err := semantic.NewSearcher(project, store, embedder, logger, opts...)
	if err != nil {
		return search{}, err
	}
	return search{embedder: embedder, fast: fast, indexer: indexer, searcher: searcher}, nil
}

// embeddingProgress is the progress file's content.
type embeddingProgress struct {
	Model     string    `json:"model"`
	Embedded  int       `json:"embedded"`
	Total     int       `json:"total"`
	NotesPerS float64   `json:"notes_per_s"`
	Done      bool      `json:"done"`
	Updated   time.Time `json:"updated"`
}

// writeProgress replaces the progress file (temporary file, rename); a
// failure is logged at debug level: the file only informs status.
func writeProgress(dir string, p semantic.Progress, logger *slog.Logger) {
	b, _ := json.Marshal(embeddingProgress{Model: p.Model, Embedded: p.Embedded, Total: p.Total,
		NotesPerS: p.Rate, Done: p.Done, Updated: p.Updated.UTC()})
	if err := os.MkdirAll(dir, 0o700); err == nil {
		tmp := filepath.Join(dir, progressFileName+".tmp")
		if err = os.WriteFile(tmp, b, 0o600); err == nil {
			err = os.Rename(tmp, filepath.Join(dir, progressFileName))
		}
		if err == nil {
			return
		}
		logger.Debug("semantic: progress file not written", "err", err)
	}
}

// readProgress reads the progress file of dir; ok is false when there is
// none.
func readProgress(dir string) (p embeddingProgress, ok bool) {
	b, err := os.ReadFile(filepath.Join(dir, progressFileName))
	if err != nil || json.Unmarshal(b, &p) != nil {
		return p, false
	}
	return p, true
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

// indexNow embeds the stale notes before a command goes on, waiting at
// most budget (0: no bound). With a fast tier, the notes without any
// vector get the fast tier's first (in full, within budget); the slow
// model's vectors are then waited for only when slowToo is set, and at
// most firstPassBudget: serve and sync --watch leave them to the
// background indexer (search answers at once), call and a one-shot sync
// give them a bounded head start and leave the rest to the next serve.
// A failure is logged, not returned: search still answers with what is
// embedded, and a running indexer retries.
func (a *app) indexNow(ctx context.Context, budget time.Duration, slowToo bool) {
	ix := a.search.indexer
	if ix == nil {
		return
	}
	run := func(budget time.Duration, pass func(context.Context) (semantic.IndexStats, error)) {
		ctx := ctx
		if budget > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, budget)
			defer cancel()
		}
		_, err := pass(ctx)
		switch {
		case err == nil:
		case errors.Is(err, context.DeadlineExceeded) && budget > 0:
			a.logger.Info("semantic: embedding continues in the background (or at the next serve)", "waited_s", budget.Seconds(),
				"notes_waiting", max(ix.Pending(), 0))
		case ctx.Err() != nil:
		default:
			a.logger.Warn("semantic: embedding notes failed; search sees what is embedded", "err", err)
		}
	}
	if a.search.fast == nil {
		run(budget, ix.IndexStale)
		return
	}
	run(budget, ix.IndexFast)
	if slowToo {
		run(firstPassBudget, ix.IndexStale)
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
