package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// lazyRetryInterval is how often a lazyStore tries to open its store again:
// calls in between fail at once with the last error instead of each
// waiting out a connection timeout.
const lazyRetryInterval = time.Second

// lazyStore is a core.Store whose backing store could not be opened at
// start because it was unreachable (Neo4j down). Every call first tries
// to open it (at most once per lazyRetryInterval) and, until that works,
// fails with the provider error that open returned: tools answer
// PROVIDER_ERROR and the vault watcher queues its changes and retries, as
// they do when an open store goes down. The first call after the store
// is back opens it, and from then on calls go straight through.
type lazyStore struct {
	open   func(context.Context) (core.Store, error)
	logger *slog.Logger

	mu      sync.Mutex
	store   core.Store // nil until open succeeds
	lastTry time.Time
	lastErr error
}

var _ core.Store = (*lazyStore)(nil)

func newLazyStore(open func(context.Context) (core.Store, error), firstErr error, logger *slog.Logger) *lazyStore {
	return &lazyStore{open: open, logger: logger, lastTry: time.Now(), lastErr: firstErr}
}

// get returns the open store, opening it if it is time to try again.
func (l *lazyStore) get(ctx context.Context) (core.Store, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.store != nil {
		return l.store, nil
	}
	if time.Since(l.lastTry) < lazyRetryInterval {
		return nil, l.lastErr
	}
	l.lastTry = time.Now()
	s, err := l.open(ctx)
	if err != nil {
		if !core.IsProviderError(err) {
			err = core.NewProviderError("open store", err)
		}
		l.lastErr = err
		return nil, err
	}
	l.store = s
	l.logger.Info("the store is reachable again; opened it")
	return s, nil
}

// with runs f on the open store.
func with[T any](l *lazyStore, ctx context.Context, f func(core.Store) (T, error)) (T, error) {
	s, err := l.get(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	return f(s)
}

func (l *lazyStore) GetNote(ctx context.Context, project, id string) (*core.Note, error) {
	return with(l, ctx, func(s core.Store) (*core.Note, error) { return s.GetNote(ctx, project, id) })
}

func (l *lazyStore) GetNotes(ctx context.Context, project string, ids []string) ([]core.Note, error) {
	return with(l, ctx, func(s core.Store) ([]core.Note, error) { return s.GetNotes(ctx, project, ids) })
}

func (l *lazyStore) ResolveTitles(ctx context.Context, project string, ids []string) (map[string]string, error) {
	return with(l, ctx, func(s core.Store) (map[string]string, error) { return s.ResolveTitles(ctx, project, ids) })
}

func (l *lazyStore) Neighbors(ctx context.Context, project, id string, dir core.Direction, limit int) ([]core.Neighbor, error) {
	return with(l, ctx, func(s core.Store) ([]core.Neighbor, error) { return s.Neighbors(ctx, project, id, dir, limit) })
}

func (l *lazyStore) Degree(ctx context.Context, project, id string) (core.Degree, error) {
	return with(l, ctx, func(s core.Store) (core.Degree, error) { return s.Degree(ctx, project, id) })
}

func (l *lazyStore) ShortestPath(ctx context.Context, project, source, target string) ([]string, error) {
	return with(l, ctx, func(s core.Store) ([]string, error) { return s.ShortestPath(ctx, project, source, target) })
}

func (l *lazyStore) Hubs(ctx context.Context, project string, metric core.HubMetric, limit int) ([]core.Hub, error) {
	return with(l, ctx, func(s core.Store) ([]core.Hub, error) { return s.Hubs(ctx, project, metric, limit) })
}

func (l *lazyStore) NotesByTags(ctx context.Context, project string, tags []string, mode core.TagMode, limit int) ([]core.Note, error) {
	return with(l, ctx, func(s core.Store) ([]core.Note, error) { return s.NotesByTags(ctx, project, tags, mode, limit) })
}

func (l *lazyStore) RandomNote(ctx context.Context, project string, tags []string, pick func(n int) int) (*core.Note, error) {
	return with(l, ctx, func(s core.Store) (*core.Note, error) { return s.RandomNote(ctx, project, tags, pick) })
}

func (l *lazyStore) CountNotes(ctx context.Context, project string) (int, error) {
	return with(l, ctx, func(s core.Store) (int, error) { return s.CountNotes(ctx, project) })
}

func (l *lazyStore) NoteHashes(ctx context.Context, project string) (map[string]string, error) {
	return with(l, ctx, func(s core.Store) (map[string]string, error) { return s.NoteHashes(ctx, project) })
}

func (l *lazyStore) UnresolvedLinkers(ctx context.Context, project string, keys []string) ([]string, error) {
	return with(l, ctx, func(s core.Store) ([]string, error) { return s.UnresolvedLinkers(ctx, project, keys) })
}

func (l *lazyStore) UpsertNotes(ctx context.Context, project string, notes []core.Note) error {
	_, err := with(l, ctx, func(s core.Store) (struct{}, error) { return struct{}{}, s.UpsertNotes(ctx, project, notes) })
	return err
}

func (l *lazyStore) DeleteNotes(ctx context.Context, project string, ids []string) (int, error) {
	return with(l, ctx, func(s core.Store) (int, error) { return s.DeleteNotes(ctx, project, ids) })
}

// Close closes the store if it was ever opened.
func (l *lazyStore) Close(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.store == nil {
		return nil
	}
	return l.store.Close(ctx)
}
