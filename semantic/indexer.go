// Package semantic keeps note embeddings current and answers hybrid
// searches over them.
//
// The Indexer embeds the notes a store reports stale (no vector of the
// embedder's model for their current content hash), in batches, and stores
// the vectors; it runs once after a sync and again whenever the store
// receives notes (NotifyingStore). The Searcher fuses the store's nearest
// vectors with its keyword relevance (embedding/hybrid) and implements
// core.Searcher for the graph service.
//
// The package depends on core and the fusion helpers only; cmd wires it.
package semantic

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// Defaults of IndexerConfig.
const (
	DefaultBatchSize        = 256
	DefaultProgressInterval = 3 * time.Second
	DefaultDebounce         = 200 * time.Millisecond
	DefaultRetryMin         = time.Second
	DefaultRetryMax         = time.Minute
)

// Store is what the indexer needs: the stale list, the notes' text and a
// place for their vectors.
type Store interface {
	core.SearchStore
	GetNotes(ctx context.Context, project string, ids []string) ([]core.Note, error)
}

// IndexerConfig configures an Indexer.
type IndexerConfig struct {
	Project  string
	Store    Store
	Embedder core.Embedder
	// BatchSize is how many notes are embedded and stored at once.
	BatchSize int
	// ProgressInterval is how often a long pass logs its progress.
	ProgressInterval time.Duration
	// Debounce is how long Run waits after a notification for more
	// before it starts a pass.
	Debounce time.Duration
	// RetryMin and RetryMax bound the backoff after a failed pass.
	RetryMin, RetryMax time.Duration
	Logger             *slog.Logger
}

// Indexer embeds stale notes. It is safe for concurrent use; passes never
// overlap.
type Indexer struct {
	cfg    IndexerConfig
	log    *slog.Logger
	pass   sync.Mutex    // one pass at a time
	notify chan struct{} // buffered(1): a pass is wanted
}

// IndexStats summarises one pass.
type IndexStats struct {
	Stale    int           // notes found stale at the start
	Embedded int           // notes whose vector was stored
	Duration time.Duration // wall time
}

// NewIndexer checks cfg and returns an Indexer.
func NewIndexer(cfg IndexerConfig) (*Indexer, error) {
	var errs []error
	if cfg.Project == "" {
		errs = append(errs, errors.New("semantic: indexer: project is empty"))
	}
	if cfg.Store == nil {
		errs = append(errs, errors.New("semantic: indexer: store is nil"))
	}
	if cfg.Embedder == nil {
		errs = append(errs, errors.New("semantic: indexer: embedder is nil"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.ProgressInterval <= 0 {
		cfg.ProgressInterval = DefaultProgressInterval
	}
	if cfg.Debounce <= 0 {
		cfg.Debounce = DefaultDebounce
	}
	if cfg.RetryMin <= 0 {
		cfg.RetryMin = DefaultRetryMin
	}
	if cfg.RetryMax < cfg.RetryMin {
		cfg.RetryMax = max(DefaultRetryMax, cfg.RetryMin)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Indexer{cfg: cfg, log: cfg.Logger, notify: make(chan struct{}, 1)}, nil
}

// Notify asks Run for a pass soon; it never blocks.
func (ix *Indexer) Notify() {
	select {
	case ix.notify <- struct{}{}:
	default:
	}
}

// Text is what is embedded of a note: its title and its body.
func Text(n *core.Note) string {
	if n.Title == "" {
		return n.Content
	}
	return n.Title + "\n\n" + n.Content
}

// IndexStale embeds every note the store reports stale for the embedder's
// model, BatchSize at a time, and stores the vectors; each batch is stored
// as soon as it is embedded, so an interrupted pass keeps its work. Notes
// are read again right before embedding, and the vector records the hash
// of what was read, so a note edited meanwhile stays stale for the next
// pass. Progress is logged every ProgressInterval.
func (ix *Indexer) IndexStale(ctx context.Context) (IndexStats, error) {
	ix.pass.Lock()
	defer ix.pass.Unlock()
	start := time.Now()
	var stats IndexStats
	model := ix.cfg.Embedder.Model()
	stale, err := ix.cfg.Store.StaleVectors(ctx, ix.cfg.Project, model)
	if err != nil {
		return stats, fmt.Errorf("semantic: list stale notes: %w", err)
	}
	stats.Stale = len(stale)
	if len(stale) == 0 {
		return stats, nil
	}
	ix.log.Info("semantic: embedding notes", "notes", len(stale), "provider", ix.cfg.Embedder.Name(), "model", model)
	lastLog := time.Now()
	for b := 0; b < len(stale); b += ix.cfg.BatchSize {
		batch := stale[b:min(b+ix.cfg.BatchSize, len(stale))]
		n, err := ix.embedBatch(ctx, model, batch)
		stats.Embedded += n
		if err != nil {
			stats.Duration = time.Since(start)
			return stats, err
		}
		if time.Since(lastLog) >= ix.cfg.ProgressInterval {
			lastLog = time.Now()
			ix.log.Info("semantic: embedding progress", "done", b+len(batch), "total", len(stale),
				"seconds", time.Since(start).Seconds())
		}
	}
	stats.Duration = time.Since(start)
	ix.log.Info("semantic: embedding done", "embedded", stats.Embedded, "seconds", stats.Duration.Seconds())
	return stats, nil
}

// embedBatch embeds and stores one batch; it returns how many vectors it
// stored.
func (ix *Indexer) embedBatch(ctx context.Context, model string, batch []core.StaleNote) (int, error) {
	ids := make([]string, len(batch))
	for i, s := range batch {
		ids[i] = s.ID
	}
	notes, err := ix.cfg.Store.GetNotes(ctx, ix.cfg.Project, ids)
	if err != nil {
		return 0, fmt.Errorf("semantic: read notes to embed: %w", err)
	}
	if len(notes) == 0 { // deleted meanwhile
		return 0, nil
	}
	texts := make([]string, len(notes))
	for i := range notes {
		texts[i] = Text(&notes[i])
	}
	vecs, err := ix.cfg.Embedder.Embed(ctx, texts)
	if err != nil {
		return 0, fmt.Errorf("semantic: embed %d notes: %w", len(texts), err)
	}
	if len(vecs) != len(notes) {
		return 0, core.NewProviderError("embed notes",
			fmt.Errorf("%d vectors for %d texts from %s", len(vecs), len(notes), ix.cfg.Embedder.Name()))
	}
	out := make([]core.NoteVector, len(notes))
	for i := range notes {
		out[i] = core.NoteVector{ID: notes[i].ID, Hash: notes[i].Hash, Vector: vecs[i]}
	}
	if err := ix.cfg.Store.SetNoteVectors(ctx, ix.cfg.Project, model, out); err != nil {
		return 0, fmt.Errorf("semantic: store %d vectors: %w", len(out), err)
	}
	return len(out), nil
}

// Run makes a pass at once, then one after every Notify (debounced), until
// ctx ends. A failed pass (embedding service or store down) is logged and
// retried with exponential backoff. It returns nil when ctx ends.
func (ix *Indexer) Run(ctx context.Context) error {
	wait := time.Duration(0)
	backoff := ix.cfg.RetryMin
	for {
		if wait > 0 {
			if !sleep(ctx, wait) {
				return nil
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		if _, err := ix.IndexStale(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			ix.log.Warn("semantic: embedding pass failed; retrying", "err", err, "retry_in_s", backoff.Seconds())
			wait, backoff = backoff, min(backoff*2, ix.cfg.RetryMax)
			continue
		}
		backoff = ix.cfg.RetryMin
		select {
		case <-ctx.Done():
			return nil
		case <-ix.notify:
			wait = ix.cfg.Debounce
		}
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// NotifyingStore wraps a store so that every successful UpsertNotes calls
// notify (usually Indexer.Notify): the vault mirror writes through it and
// new or changed notes get embedded without the mirror knowing.
type NotifyingStore struct {
	core.GraphStore
	notify func()
}

// NewNotifyingStore returns s, calling notify after each successful
// UpsertNotes. The result is a core.StagedWriter when s is one.
func NewNotifyingStore(s core.GraphStore, notify func()) core.GraphStore {
	n := &NotifyingStore{GraphStore: s, notify: notify}
	if staged, ok := s.(core.StagedWriter); ok {
		return &stagedNotifyingStore{NotifyingStore: n, staged: staged}
	}
	return n
}

// stagedNotifyingStore is a NotifyingStore of a core.StagedWriter.
type stagedNotifyingStore struct {
	*NotifyingStore
	staged core.StagedWriter
}

// UpsertNotesStaged writes through and then notifies.
func (s *stagedNotifyingStore) UpsertNotesStaged(ctx context.Context, project string, notes []core.Note, progress func(int)) error {
	if err := s.staged.UpsertNotesStaged(ctx, project, notes, progress); err != nil {
		return err
	}
	if len(notes) > 0 {
		s.notify()
	}
	return nil
}

// UpsertNotes writes through and then notifies.
func (s *NotifyingStore) UpsertNotes(ctx context.Context, project string, notes []core.Note) error {
	if err := s.GraphStore.UpsertNotes(ctx, project, notes); err != nil {
		return err
	}
	if len(notes) > 0 {
		s.notify()
	}
	return nil
}
