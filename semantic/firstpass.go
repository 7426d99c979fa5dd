package semantic

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// FirstPassBudget bounds the first pass of vectors a long-lived process
// (serve, sync --watch) makes after its first sync (FirstPass): the fast
// tier's vectors, which the built-in provider gives a large vault within
// it, or, for a provider without one, the model's; a pass that needs
// longer finishes in the background (batches are stored as they
// complete) while search already works on what is embedded, plus keyword
// relevance for the rest.
const FirstPassBudget = 20 * time.Second

// FirstPass is the quick first pass of vectors after the first sync: the
// fast tier's vectors for every note without any (or, without a fast
// tier, the model's, within FirstPassBudget). It runs once; a search
// waits for it (WithPrepare(f.Do)), a read that needs no vectors never
// does.
type FirstPass struct {
	ix      *Indexer
	oneShot bool
	logger  *slog.Logger
	once    sync.Once
	done    chan struct{}
}

// NewFirstPass returns the first pass of ix. oneShot is a process that
// exits after one command (call): without a fast tier it embeds nothing
// and only counts the notes search will miss.
func NewFirstPass(ix *Indexer, oneShot bool, logger *slog.Logger) *FirstPass {
	return &FirstPass{ix: ix, oneShot: oneShot, logger: logger, done: make(chan struct{})}
}

// Do runs the pass, or waits for the run another caller started, until
// ctx ends.
func (f *FirstPass) Do(ctx context.Context) {
	f.once.Do(func() {
		defer close(f.done)
		f.run(ctx)
	})
	select {
	case <-f.done:
	case <-ctx.Done():
	}
}

// run is the pass's work; a failure is logged, not returned: search still
// answers with what is embedded, and a running indexer retries.
func (f *FirstPass) run(ctx context.Context) {
	ix, logger := f.ix, f.logger
	pass := ix.IndexFast
	switch {
	case f.oneShot && ix.cfg.Fast == nil:
		// Nothing quick to make: count what search will miss.
		if _, err := ix.CountStale(ctx); err != nil && ctx.Err() == nil {
			logger.Warn("semantic: counting the notes to embed failed", "err", err)
		}
		return
	case ix.cfg.Fast == nil:
		pass = ix.IndexStale
	}
	ctx, cancel := context.WithTimeout(ctx, FirstPassBudget)
	defer cancel()
	_, err := pass(ctx)
	switch {
	case err == nil:
	case errors.Is(err, context.DeadlineExceeded):
		logger.Info("semantic: the first pass of vectors continues in the background (or at the next serve)", "waited_s", FirstPassBudget.Seconds(),
			"notes_waiting", max(ix.Pending(), 0))
	case ctx.Err() != nil:
	default:
		logger.Warn("semantic: embedding notes failed; search sees what is embedded", "err", err)
	}
}
