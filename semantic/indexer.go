// Package semantic keeps note embeddings current and answers hybrid
// searches over them.
//
// The Indexer embeds the notes a store reports stale (no vector of the
// embedder's model for their current content hash; attachments and
// canvases are left out: search answers notes only), in batches, and stores
// the vectors; it runs once after a sync and again whenever the store
// receives notes (NotifyingStore). With a fast tier (the built-in
// provider's static table beside its transformer), a note without any
// current vector gets the fast tier's first, so it is searchable at once,
// and the slow model's vectors then replace them in the background. The Searcher fuses the store's nearest
// vectors with its keyword relevance (embedding/hybrid) and implements
// core.Searcher for the graph service.
//
// The package depends on core and the fusion helpers only; cmd wires it.
package semantic

import (
	"context"
	"errors"
	"fmt"
	"github.com/vaultgraph/vaultgraph/internal/lowprio"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/vaultgraph/vaultgraph/core"
)

// Defaults of IndexerConfig.
const (
	DefaultBatchSize        = 256
	DefaultSlowBatchSize    = 32
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

// TextStore is a Store that hands over what is embedded of its notes
// (Text's parts) without building whole notes; the indexer reads through
// it when the store is one (the embedded store), else through GetNotes.
type TextStore interface {
	// NoteTexts calls fn for each note of ids the project holds, in the
	// order of ids; content is valid only during fn.
	NoteTexts(ctx context.Context, project string, ids []string, fn func(id, hash, title string, content []byte)) error
}

// IndexerConfig configures an Indexer.
type IndexerConfig struct {
	Project  string
	Store    Store
	Embedder core.Embedder
	// Fast, when set, is a fast tier of Embedder (embedding.NewFast): notes
	// with no current vector of either model are embedded by Fast first,
	// then every note by Embedder, whose vector replaces Fast's.
	Fast core.Embedder
	// BatchSize is how many notes are embedded and stored at once
	// (DefaultBatchSize); with a fast tier it applies to Fast, and
	// Embedder's batches are DefaultSlowBatchSize (each a few seconds of
	// transformer work, so a stop loses little).
	BatchSize int
	// SlowBatchSize sets Embedder's batches when Fast is set.
	SlowBatchSize int
	// OnProgress, when set, hears about each pass's progress (start, every
	// ProgressInterval, end), e.g. to show it in vaultgraph status.
	OnProgress func(Progress)
	// ProgressInterval is how often a long pass logs its progress.
	ProgressInterval time.Duration
	// IdleAbove is how many stale notes a background pass must have to
	// run at the lowest CPU priority (lowprio); a smaller one (the notes
	// of a few writes) runs at normal priority, a second or so of CPU, so
	// a note just written is searchable by meaning at once however busy
	// the machine is (SCHED_IDLE threads get no CPU while anything else
	// runs). 0 means DefaultIdleAbove; a negative value makes every
	// background pass low priority.
	IdleAbove int
	// Debounce is how long Run waits after a notification for more
	// before it starts a pass.
	Debounce time.Duration
	// RetryMin and RetryMax bound the backoff after a failed pass.
	RetryMin, RetryMax time.Duration
	// Lease, when set (a store many processes share: Neo4j), makes the
	// model's background pass run in one process per vault: the one that
	// holds the project's EmbedLease, renewed before every batch. The
	// others skip the pass (their fast tier still runs, so notes they
	// write are searchable at once), search the vectors the holder stores,
	// and try again every LeaseRetry, so one takes over when the holder
	// stops. A pass someone waits for (sync --embed) runs regardless.
	Lease core.Leaser
	// LeaseTTL is how long the lease is held without renewal
	// (DefaultLeaseTTL); LeaseRetry how often a process without it asks
	// again (DefaultLeaseRetry).
	LeaseTTL, LeaseRetry time.Duration
	Logger               *slog.Logger
}

// The embedding lease (IndexerConfig.Lease).
const (
	EmbedLease        = "embedding"
	DefaultLeaseTTL   = 5 * time.Minute
	DefaultLeaseRetry = time.Minute
)

// Indexer embeds stale notes. It is safe for concurrent use; passes never
// overlap.
type Indexer struct {
	cfg     IndexerConfig
	log     *slog.Logger
	pass    sync.Mutex    // one pass at a time
	notify  chan struct{} // buffered(1): a pass is wanted
	pending atomic.Int64  // notes without a vector of Embedder's model at the last count; -1 before
	// elsewhere: the last pass found the embedding lease held by another
	// process (logged once at INFO, then at DEBUG); guarded by pass.
	elsewhere bool
}

// IndexStats summarises one pass.
type IndexStats struct {
	Stale       int           // notes found stale for Embedder's model at the start
	Fast        int           // notes given a vector of the fast tier first
	Embedded    int           // notes whose vector of Embedder's model was stored
	Interrupted bool          // the pass stopped early to give new notes their fast vectors
	Elsewhere   bool          // another process holds the embedding lease: it runs the model's pass
	Duration    time.Duration // wall time
}

// Progress is where the indexer stands with Embedder's model.
type Progress struct {
	Model    string
	Embedded int     // notes embedded by this pass so far
	Total    int     // notes stale for the model when the pass started
	Rate     float64 // notes per second in this pass
	Done     bool    // the pass finished: every note has a current vector of the model
	Updated  time.Time
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
	if cfg.SlowBatchSize <= 0 {
		cfg.SlowBatchSize = DefaultSlowBatchSize
	}
	if cfg.ProgressInterval <= 0 {
		cfg.ProgressInterval = DefaultProgressInterval
	}
	if cfg.IdleAbove == 0 {
		cfg.IdleAbove = DefaultIdleAbove
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
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = DefaultLeaseTTL
	}
	if cfg.LeaseRetry <= 0 {
		cfg.LeaseRetry = DefaultLeaseRetry
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	ix := &Indexer{cfg: cfg, log: cfg.Logger, notify: make(chan struct{}, 1)}
	ix.pending.Store(-1)
	return ix, nil
}

// Pending is how many notes had no current vector of Embedder's model at
// the indexer's last count, less those embedded since; -1 before the first
// count. While it is above 0 with a fast tier, some notes are searchable
// only through their fast vectors (Searcher asks).
func (ix *Indexer) Pending() int { return int(ix.pending.Load()) }

// Notify asks Run for a pass soon; it never blocks.
func (ix *Indexer) Notify() {
	select {
	case ix.notify <- struct{}{}:
	default:
	}
}

// Text is what is embedded of a note by a model without a token limit
// (the static table, a remote service): its title, a blank line, and its
// body's prose (AppendProse). The transformer reads long notes in windows
// (Windows).
func Text(n *core.Note) string {
	return Windows(n.Title, n.Content, nil, 0, 1)[0]
}

// windowed is an embedder whose texts are cut at a token limit (the
// built-in transformer): a long note is embedded in windows.
type windowed interface {
	Tokens(text string) int
	MaxTokens() int
}

// noteWindows returns the texts e embeds of a note (Windows).
func noteWindows(e core.Embedder, title, content string) []string {
	if w, ok := e.(windowed); ok {
		return Windows(title, content, w.Tokens, w.MaxTokens()-2, MaxWindows)
	}
	return Windows(title, content, nil, 0, 1)
}

// IndexStale embeds every note the store reports stale for the embedder's
// model, BatchSize at a time, and stores the vectors; each batch is stored
// as soon as it is embedded, so an interrupted pass keeps its work. Notes
// are read again right before embedding, and the vector records the hash
// of what was read, so a note edited meanwhile stays stale for the next
// pass. With a fast tier, the notes with no current vector of either model
// get the fast tier's first. Progress is logged every ProgressInterval.
// DefaultIdleAbove is IndexerConfig.IdleAbove's default: a pass of more
// notes than a few writes make is a bulk pass (a first start, a model
// change), which must not slow the reads served meanwhile.
const DefaultIdleAbove = 64

func (ix *Indexer) IndexStale(ctx context.Context) (IndexStats, error) {
	return ix.index(ctx, passOptions{background: true})
}

// IndexStaleReport is IndexStale calling onBatch after every batch of
// Embedder's model is stored, with how many notes of the pass are done
// and how many it has (a command's progress bar); the periodic progress
// log lines are left to onBatch then.
func (ix *Indexer) IndexStaleReport(ctx context.Context, onBatch func(done, total int)) (IndexStats, error) {
	return ix.index(ctx, passOptions{onBatch: onBatch})
}

// CountStale counts the notes without a current vector of Embedder's
// model and records it as Pending.
func (ix *Indexer) CountStale(ctx context.Context) (int, error) {
	stale, err := ix.staleNotes(ctx, ix.cfg.Embedder)
	if err != nil {
		return 0, err
	}
	ix.pending.Store(int64(len(stale)))
	return len(stale), nil
}

// staleNotes lists the notes without a current vector of e's model (by ID
// ascending), leaving out the attachments and canvases the store lists
// with them: search answers notes only (core.NoteHits), so their vectors
// would cost a pass's CPU and the store's memory for nothing (an
// attachment's text is its file name; a canvas is found through the notes
// it links).
func (ix *Indexer) staleNotes(ctx context.Context, e core.Embedder) ([]core.StaleNote, error) {
	stale, err := ix.cfg.Store.StaleVectors(ctx, ix.cfg.Project, NoteModel(e))
	if err != nil {
		return nil, fmt.Errorf("semantic: list stale notes: %w", err)
	}
	return slices.DeleteFunc(stale, func(s core.StaleNote) bool { return core.IsFileNode(s.ID) }), nil
}

// IndexFast gives every note without a current vector of either model its
// fast tier's vector, and embeds nothing with Embedder: the quick part of
// a pass, after which every note is searchable. Without a fast tier it is
// IndexStale.
func (ix *Indexer) IndexFast(ctx context.Context) (IndexStats, error) {
	if ix.cfg.Fast == nil {
		return ix.IndexStale(ctx)
	}
	ix.pass.Lock()
	defer ix.pass.Unlock()
	start := time.Now()
	var stats IndexStats
	stale, err := ix.staleNotes(ctx, ix.cfg.Embedder)
	if err != nil {
		return stats, err
	}
	stats.Stale = len(stale)
	ix.pending.Store(int64(len(stale)))
	stats.Fast, err = ix.indexFast(ctx, stale)
	stats.Duration = time.Since(start)
	return stats, err
}

// passOptions are how a pass runs.
type passOptions struct {
	// interruptible: stop between batches when notes were written (Run).
	interruptible bool
	// background: the model's batches run at the lowest CPU priority
	// (lowprio), and the pass yields between them; a pass someone waits
	// for (sync --embed) runs at normal priority.
	background bool
	// onBatch, when set, hears of every batch (IndexStaleReport).
	onBatch func(done, total int)
}

// index is one pass; interruptible passes (Run's, with a fast tier) stop
// between slow batches when notes were written meanwhile, so that the next
// pass gives them fast vectors within seconds instead of after the whole
// slow pass.
func (ix *Indexer) index(ctx context.Context, o passOptions) (IndexStats, error) {
	interruptible, onBatch := o.interruptible, o.onBatch
	ix.pass.Lock()
	defer ix.pass.Unlock()
	start := time.Now()
	var stats IndexStats
	best := ix.cfg.Embedder
	model := best.Model() // as progress shows it; vectors are stored under NoteModel(best)
	stale, err := ix.staleNotes(ctx, best)
	if err != nil {
		return stats, err
	}
	stats.Stale = len(stale)
	ix.pending.Store(int64(len(stale)))
	if len(stale) == 0 {
		ix.report(Progress{Model: model, Done: true})
		return stats, nil
	}
	batchSize := ix.cfg.BatchSize
	if fast := ix.cfg.Fast; fast != nil {
		batchSize = ix.cfg.SlowBatchSize
		n, err := ix.indexFast(ctx, stale)
		stats.Fast = n
		if err != nil {
			stats.Duration = time.Since(start)
			return stats, err
		}
	}
	lease := ix.cfg.Lease
	if !o.background {
		lease = nil
	}
	if lease != nil {
		held, err := lease.TryLease(ctx, ix.cfg.Project, EmbedLease, ix.cfg.LeaseTTL)
		if err != nil {
			stats.Duration = time.Since(start)
			return stats, fmt.Errorf("semantic: take the embedding lease: %w", err)
		}
		if !held {
			stats.Elsewhere = true
			stats.Duration = time.Since(start)
			level := slog.LevelDebug
			if !ix.elsewhere {
				level = slog.LevelInfo
			}
			ix.elsewhere = true
			ix.log.Log(ctx, level, "semantic: another process holds this vault's embedding lease: it embeds the notes, this one searches the vectors it stores",
				"notes", len(stale), "model", model)
			return stats, nil
		}
		ix.elsewhere = false
		defer func() {
			if err := lease.ReleaseLease(context.WithoutCancel(ctx), ix.cfg.Project, EmbedLease); err != nil {
				ix.log.Debug("semantic: giving the embedding lease back failed; it expires", "err", err)
			}
		}()
	}
	ix.log.Info("semantic: embedding notes", "notes", len(stale), "provider", best.Name(), "model", model)
	lastLog := time.Now()
	progress := func(done bool) Progress {
		secs := time.Since(start).Seconds()
		return Progress{Model: model, Embedded: stats.Embedded, Total: len(stale), Rate: float64(stats.Embedded) / max(secs, 1e-3), Done: done}
	}
	ix.report(progress(false))
	for b := 0; b < len(stale); b += batchSize {
		batch := stale[b:min(b+batchSize, len(stale))]
		if lease != nil && b > 0 {
			held, err := lease.TryLease(ctx, ix.cfg.Project, EmbedLease, ix.cfg.LeaseTTL)
			if err != nil || !held {
				// Lost (a batch outlasted the lease and another process
				// took it) or unreachable: the holder goes on.
				stats.Elsewhere = true
				stats.Duration = time.Since(start)
				ix.log.Info("semantic: the embedding lease passed to another process; stopping this pass", "done", b, "total", len(stale), "err", err)
				return stats, nil
			}
		}
		// A background pass's batches use only CPU time nothing else
		// wants (lowprio: SCHED_IDLE threads on Linux), so the reads
		// served meanwhile keep their pace.
		bctx := ctx
		if o.background && len(stale) > ix.cfg.IdleAbove {
			bctx = lowprio.With(ctx)
			runtime.Gosched()
		}
		n, err := ix.embedBatch(bctx, best, batch)
		stats.Embedded += n
		ix.pending.Add(-int64(len(batch)))
		if err != nil {
			stats.Duration = time.Since(start)
			return stats, err
		}
		if onBatch != nil {
			onBatch(b+len(batch), len(stale))
		}
		if time.Since(lastLog) >= ix.cfg.ProgressInterval {
			lastLog = time.Now()
			p := progress(false)
			if onBatch == nil {
				ix.log.Info("semantic: embedding progress", "done", b+len(batch), "total", len(stale),
					"seconds", time.Since(start).Seconds(), "notes_per_s", p.Rate, "model", model)
			}
			ix.report(p)
		}
		if interruptible && ix.cfg.Fast != nil && len(ix.notify) > 0 && b+len(batch) < len(stale) {
			stats.Interrupted = true
			stats.Duration = time.Since(start)
			ix.log.Info("semantic: notes written; embedding them before the rest", "done", b+len(batch), "total", len(stale))
			ix.report(progress(false))
			return stats, nil
		}
	}
	stats.Duration = time.Since(start)
	ix.report(progress(true))
	ix.log.Info("semantic: embedding done", "embedded", stats.Embedded, "seconds", stats.Duration.Seconds(), "model", model)
	return stats, nil
}

// indexFast gives the notes of stale (by ID ascending) that have no
// current vector of the fast tier either their fast vector.
func (ix *Indexer) indexFast(ctx context.Context, stale []core.StaleNote) (int, error) {
	fast := ix.cfg.Fast
	staleFast, err := ix.staleNotes(ctx, fast)
	if err != nil {
		return 0, err
	}
	need := intersectByID(stale, staleFast)
	if len(need) == 0 {
		return 0, nil
	}
	start := time.Now()
	done := 0
	for b := 0; b < len(need); b += ix.cfg.BatchSize {
		n, err := ix.embedBatch(ctx, fast, need[b:min(b+ix.cfg.BatchSize, len(need))])
		done += n
		if err != nil {
			return done, err
		}
	}
	ix.log.Info("semantic: notes searchable through the fast tier", "notes", done, "model", NoteModel(fast),
		"seconds", time.Since(start).Seconds())
	return done, nil
}

// intersectByID returns the notes of a (by ID ascending) whose ID is in b
// (by ID ascending too).
func intersectByID(a, b []core.StaleNote) []core.StaleNote {
	var out []core.StaleNote
	j := 0
	for _, x := range a {
		for j < len(b) && b[j].ID < x.ID {
			j++
		}
		if j < len(b) && b[j].ID == x.ID {
			out = append(out, x)
		}
	}
	return out
}

func (ix *Indexer) report(p Progress) {
	if ix.cfg.OnProgress != nil {
		p.Updated = time.Now()
		ix.cfg.OnProgress(p)
	}
}

// embedBatch embeds and stores one batch; it returns how many vectors it
// stored. A note cut into windows (noteWindows) gets the mean of its
// windows' vectors, normalised: one vector per note, as the stores keep.
func (ix *Indexer) embedBatch(ctx context.Context, e core.Embedder, batch []core.StaleNote) (int, error) {
	ids := make([]string, len(batch))
	for i, s := range batch {
		ids[i] = s.ID
	}
	texts, counts, out, err := ix.readBatch(ctx, e, ids)
	if err != nil {
		return 0, err
	}
	if len(out) == 0 { // deleted meanwhile
		return 0, nil
	}
	vecs, err := e.Embed(ctx, texts)
	if err != nil {
		return 0, fmt.Errorf("semantic: embed %d notes: %w", len(out), err)
	}
	if len(vecs) != len(texts) {
		return 0, core.NewProviderError("embed notes",
			fmt.Errorf("%d vectors for %d texts from %s", len(vecs), len(texts), e.Name()))
	}
	k := 0
	for i := range out {
		out[i].Vector = CombineWindows(vecs[k : k+counts[i]])
		k += counts[i]
	}
	if err := ix.cfg.Store.SetNoteVectors(ctx, ix.cfg.Project, NoteModel(e), out); err != nil {
		return 0, fmt.Errorf("semantic: store %d vectors: %w", len(out), err)
	}
	return len(out), nil
}

// readBatch reads the notes of ids that exist and returns the texts e
// embeds of them (noteWindows: one or more per note, flattened), how many
// texts each note has, and each note's vector ID and content hash, in the
// order of ids. Through a TextStore no note is built: the texts are made
// from the content in place.
func (ix *Indexer) readBatch(ctx context.Context, e core.Embedder, ids []string) ([]string, []int, []core.NoteVector, error) {
	var (
		texts  []string
		counts []int
		out    []core.NoteVector
	)
	add := func(id, hash, title, content string) {
		w := noteWindows(e, title, content)
		texts = append(texts, w...)
		counts = append(counts, len(w))
		out = append(out, core.NoteVector{ID: id, Hash: hash})
	}
	ts, ok := ix.cfg.Store.(TextStore)
	if !ok {
		notes, err := ix.cfg.Store.GetNotes(ctx, ix.cfg.Project, ids)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("semantic: read notes to embed: %w", err)
		}
		for i := range notes {
			add(notes[i].ID, notes[i].Hash, notes[i].Title, notes[i].Content)
		}
		return texts, counts, out, nil
	}
	err := ts.NoteTexts(ctx, ix.cfg.Project, ids, func(id, hash, title string, content []byte) {
		// The windows are copies: nothing of them refers to content,
		// which is valid only during fn.
		add(id, hash, title, unsafe.String(unsafe.SliceData(content), len(content)))
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("semantic: read notes to embed: %w", err)
	}
	return texts, counts, out, nil
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
		st, err := ix.index(ctx, passOptions{interruptible: true, background: true})
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			ix.log.Warn("semantic: embedding pass failed; retrying", "err", err, "retry_in_s", backoff.Seconds())
			wait, backoff = backoff, min(backoff*2, ix.cfg.RetryMax)
			continue
		}
		backoff = ix.cfg.RetryMin
		// Another process embeds this vault: ask for the lease again in a
		// while (it may have stopped), or at the next write.
		var retry <-chan time.Time
		var timer *time.Timer
		if st.Elsewhere {
			timer = time.NewTimer(ix.cfg.LeaseRetry)
			retry = timer.C
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ix.notify:
			wait = ix.cfg.Debounce
		case <-retry:
			wait = 0
		}
		if timer != nil {
			timer.Stop()
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
// UpsertNotes. The result is a core.StagedWriter (core.StagedStreamer)
// when s is one.
func NewNotifyingStore(s core.GraphStore, notify func()) core.GraphStore {
	n := &NotifyingStore{GraphStore: s, notify: notify}
	if streamer, ok := s.(core.StagedStreamer); ok {
		return &streamNotifyingStore{stagedNotifyingStore: &stagedNotifyingStore{NotifyingStore: n, staged: streamer}, streamer: streamer}
	}
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

// streamNotifyingStore is a NotifyingStore of a core.StagedStreamer.
type streamNotifyingStore struct {
	*stagedNotifyingStore
	streamer core.StagedStreamer
}

// BeginStaged starts the wrapped store's stream, which notifies once
// finished.
func (s *streamNotifyingStore) BeginStaged(ctx context.Context, project string, progress func(int)) (core.StagedStream, error) {
	st, err := s.streamer.BeginStaged(ctx, project, progress)
	if err != nil {
		return nil, err
	}
	return core.HookStagedStream(st, nil, func(ids []string) {
		if len(ids) > 0 {
			s.notify()
		}
	}), nil
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
