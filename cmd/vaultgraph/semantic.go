package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding"
	"github.com/vaultgraph/vaultgraph/semantic"
)

// search is semantic search wired for one store: nil fields when no
// embedding provider is configured.
type search struct {
	embedder core.Embedder // nil without a provider; shared by every toolset
	fast     core.Embedder // the built-in provider's fast tier (static table); nil otherwise
	indexer  *semantic.Indexer
	searcher *semantic.Searcher
	first    *semantic.FirstPass // nil without a provider
}

// newSearch builds the configured embedder (and its fast tier, if it has
// one) and, unless it is "none", the indexer and searcher over store. The
// indexer records its progress in stateDir (status reads it; "" keeps it
// in the log only). oneShot is a process that exits after one command
// (call): it embeds nothing with the model, and its searches use what
// vectors exist (the fast tier's made at the first search) plus keywords,
// saying so in the call's warnings.
func newSearch(cfg *config.Config, project string, store core.StoreProvider, stateDir string, oneShot bool, logger *slog.Logger) (search, error) {
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
	if l, ok := store.(core.Leaser); ok {
		// Neo4j: one replica per vault runs the model's pass (issue 49.9).
		icfg.Lease = l
	}
	if stateDir != "" {
		icfg.OnProgress = func(p semantic.Progress) {
			if err := semantic.WriteProgressFile(stateDir, p); err != nil {
				logger.Debug("semantic: progress file not written", "err", err)
			}
		}
	}
	indexer, err := semantic.NewIndexer(icfg)
	if err != nil {
		return search{}, err
	}
	s := search{embedder: embedder, fast: fast, indexer: indexer}
	s.first = semantic.NewFirstPass(indexer, oneShot, logger)
	opts := []semantic.SearcherOption{semantic.WithPrepare(s.first.Do)}
	if floor, ok := semantic.RelevanceFloor(embedder); ok {
		opts = append(opts, semantic.WithRelevanceFloor(floor))
	}
	if fast != nil {
		opts = append(opts, semantic.WithFastTier(fast, indexer.Pending))
	}
	if oneShot {
		model := embedder.Model()
		opts = append(opts, semantic.WithPendingWarning(indexer.Pending, func(n int) string {
			return fmt.Sprintf("%d notes have no vector of the model %s yet: they were compared by their quick vectors (if any) and keywords, "+
				"so a paraphrase may miss them; `vaultgraph sync --embed` embeds them all (resumable), as a running `vaultgraph serve` does in the background", n, model)
		}))
	}
	s.searcher, err = semantic.NewSearcher(project, store, embedder, logger, opts...)
	if err != nil {
		return search{}, err
	}
	return s, nil
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

// firstVectors runs the first pass of vectors (semantic.FirstPass), or
// waits for the one running; a no-op without an embedding provider.
func (a *app) firstVectors(ctx context.Context) {
	if a.search.first != nil {
		a.search.first.Do(ctx)
	}
}

// errInterrupted is a command stopped by a signal: what it wrote is kept.
var errInterrupted = errors.New("interrupted: what was written is kept; run the command again to finish")

// embedAll embeds every note without a current vector of the model (sync
// --embed), showing a progress bar on a terminal and the indexer's
// progress lines otherwise. Every batch is stored as it is embedded, so
// an interrupted run keeps its work and the next run goes on from there.
func (a *app) embedAll(ctx context.Context) error {
	ix := a.search.indexer
	if ix == nil {
		a.logger.Info("semantic: no embedding provider is configured: nothing to embed")
		return nil
	}
	var onBatch func(done, total int)
	if term.IsTerminal(int(os.Stderr.Fd())) {
		var bar *progressbar.ProgressBar
		onBatch = func(done, total int) {
			if bar == nil {
				bar = progressbar.NewOptions(total,
					progressbar.OptionSetWriter(os.Stderr),
					progressbar.OptionSetDescription("embedding notes"),
					progressbar.OptionShowCount(),
					progressbar.OptionShowIts(),
					progressbar.OptionSetItsString("notes"),
					progressbar.OptionSetPredictTime(true),
					progressbar.OptionThrottle(100*time.Millisecond),
				)
			}
			_ = bar.Set(done)
		}
		defer func() {
			if bar != nil {
				_ = bar.Exit()
				fmt.Fprintln(os.Stderr)
			}
		}()
	}
	st, err := ix.IndexStaleReport(ctx, onBatch)
	switch {
	case ctx.Err() != nil:
		a.logger.Info("semantic: embedding stopped; the notes embedded are kept", "embedded", st.Embedded, "notes_waiting", max(ix.Pending(), 0))
		return errInterrupted
	case err != nil:
		return fmt.Errorf("embed notes: %w", err)
	}
	return nil
}

// runIndexer keeps embeddings current (notes, and document chunks stored
// with the fast tier's vectors) until ctx ends; call it in a
// goroutine. It is a no-op without an embedding provider.
func (a *app) runIndexer(ctx context.Context) {
	if a.search.indexer == nil {
		return
	}
	var docs sync.WaitGroup
	a.lazyMu.Lock()
	index := a.docs
	a.lazyMu.Unlock()
	if index != nil {
		// Document chunks indexed through the fast tier get the model's
		// vectors, as notes do.
		docs.Go(func() { index.RunUpgrades(ctx) })
	}
	_ = a.search.indexer.Run(ctx) // returns nil when ctx ends; failures are logged and retried
	docs.Wait()
}
