package vault

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// Defaults for the zero values of Config.
const (
	// DefaultBatchSize: notes per UpsertNotes call. A store that writes in
	// stages (core.StagedWriter: both of vaultgraph's) takes a larger write
	// in one staged call instead, so that no link into a later batch is
	// stored as a ghost and rewired (a first sync of 10k notes into Neo4j:
	// 11 s in batches of 2000, 4.5 s staged; docs/BENCHMARKS.md).
	DefaultBatchSize         = 2000
	DefaultDebounce          = 75 * time.Millisecond
	DefaultMaxWait           = time.Second
	DefaultReconcileInterval = 5 * time.Minute
	DefaultMaxFileSize       = 32 << 20
	DefaultRetryMin          = 500 * time.Millisecond
	DefaultRetryMax          = 30 * time.Second
)

// Config says which vault a Mirror mirrors into which store, and how.
type Config struct {
	// Root is the vault folder. Symbolic links in it are resolved once.
	Root string
	// Project is the project (vault) the notes belong to in the store.
	Project string
	// Store receives the graph.
	Store core.GraphStore
	// Stamper is the store under Store (which may wrap it) when it can
	// stamp its note states (core.StatesStamper): a restart then resolves
	// the stored links again only when no stamp proves them resolved as
	// stored (vault/restore.go). Store itself is used when it is one.
	Stamper core.StatesStamper
	// Origins, when set, records where each full sync of Project ran
	// (the store: core.SyncOrigins). A first sync that would delete
	// notes of a project last synced from another host or vault path
	// refuses then, unless AllowForeignDeletes (issue 44.8).
	Origins core.SyncOrigins
	// Host names this machine in Origins; "" means os.Hostname().
	Host string
	// AllowForeignDeletes lets a first sync delete notes of a project
	// last synced from another host or path (sync --force, the setting
	// sync.allow_foreign_deletes).
	AllowForeignDeletes bool
	// Ignore lists globs of vault-relative paths to skip besides dot-files
	// and dot-folders (see the package documentation).
	Ignore []string
	// Logger receives progress summaries and problems; nil means slog.Default().
	Logger *slog.Logger
	// LintLog is a file (in the state folder) where the Mirror keeps which
	// of the notes' problems it has logged, so that a start logs only
	// those new since, and the ones fixed, rather than every problem of
	// the vault at every start. "" keeps nothing: the first sync logs all.
	LintLog string

	// Workers is how many files are read and parsed at once in a full
	// sync; 0 means GOMAXPROCS.
	Workers int
	// BatchSize is how many notes go into one UpsertNotes call; 0 means
	// DefaultBatchSize.
	BatchSize int
	// StagedBatch, when positive, says the store takes a large write in
	// parts of this many notes. A first sync into a store without the
	// project's notes then streams: it reads, parses and writes the vault
	// a part at a time, in ID order, the next part read while the store
	// writes this one (stream.go), holding a few parts' text, not the
	// vault's. A write of more than BatchSize notes otherwise goes to a
	// core.StagedWriter store in staged calls of this many notes, each
	// note's text read from its file for its call only; to a
	// core.StagedStreamer store (Neo4j: all notes before any link) as the
	// parts of one staged stream. 0 gives a StagedWriter every note in
	// one call.
	StagedBatch int
	// MaxFileSize skips larger note files with a warning; 0 means
	// DefaultMaxFileSize.
	MaxFileSize int64
	// Rewrite makes Sync write every note even when the store already has
	// its content hash (after an upgrade that parses notes differently).
	Rewrite bool
	// FileNames is how the writer names the file of a note it creates or
	// renames by title: FileNamesTitle ("title", the default for "") or
	// FileNamesSlug ("slug"); see TitleFileName and SanitizeTitle.
	FileNames string
	// NoProgress turns the progress bar off. It is shown only when stderr
	// is a terminal anyway.
	NoProgress bool

	// Live says that Watch follows the first Sync (serve, sync --watch):
	// that Sync's walk then watches each folder before listing it, so
	// Watch starts on those watches and the events since, without a
	// rescan of its own. Watch's own first Sync does so in any case.
	// Close stops the watches if Watch never runs.
	Live bool

	// Debounce is the quiet time after a file event before the burst of
	// events is applied; 0 means DefaultDebounce.
	Debounce time.Duration
	// MaxWait bounds how long a steady stream of events can delay
	// applying them; 0 means DefaultMaxWait.
	MaxWait time.Duration
	// ReconcileInterval is how often live mode rescans the whole vault and
	// compares it with the store, to heal what a missed event left
	// behind; 0 means DefaultReconcileInterval, a negative value never.
	ReconcileInterval time.Duration
	// Observer, when set, hears of every write of the mirror to the store
	// (a metrics sink: *metrics.Metrics).
	Observer SyncObserver
	// Changes, when set, is told every note file the Mirror finds
	// created, modified, renamed or deleted once it is loaded: by a tool's
	// write, the watcher or a rescan, and at a start, what changed while
	// no vaultgraph ran (the first sync of an empty store tells nothing).
	// It is called with the Mirror's lock held, in the order changes are
	// applied, and must not call the Mirror (see changes.go).
	Changes func(ctx context.Context, changes []core.NoteChange)

	// FirstSyncWait, when set, bounds how long a write through the Writer
	// waits for the first Sync to end before it fails with a provider
	// error (nothing written); 0 means it waits for as long as the sync
	// takes (and fails at once before Sync has started).
	FirstSyncWait time.Duration
	// RetryMin and RetryMax bound the backoff between attempts to apply
	// queued changes to a store that failed; 0 means DefaultRetryMin and
	// DefaultRetryMax.
	RetryMin, RetryMax time.Duration
}

// withDefaults validates c and fills in defaults.
func (c Config) withDefaults() (Config, error) {
	var errs []error
	if c.Root == "" {
		errs = append(errs, errors.New("vault: config: root is empty"))
	}
	if c.Project == "" {
		errs = append(errs, errors.New("vault: config: project is empty"))
	}
	if c.Store == nil {
		errs = append(errs, errors.New("vault: config: store is nil"))
	}
	switch c.FileNames {
	case "":
		c.FileNames = FileNamesTitle
	case FileNamesTitle, FileNamesSlug:
	default:
		errs = append(errs, fmt.Errorf("vault: config: file names %q: use %q or %q", c.FileNames, FileNamesTitle, FileNamesSlug))
	}
	if len(errs) > 0 {
		return c, errors.Join(errs...)
	}
	abs, err := filepath.Abs(c.Root)
	if err != nil {
		return c, fmt.Errorf("vault: root %s: %w", c.Root, err)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return c, fmt.Errorf("vault: root %s: %w", c.Root, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return c, fmt.Errorf("vault: root %s is not a folder", c.Root)
	}
	c.Root = abs
	if c.Host == "" {
		c.Host, _ = os.Hostname()
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.BatchSize <= 0 {
		c.BatchSize = DefaultBatchSize
	}
	if c.MaxFileSize <= 0 {
		c.MaxFileSize = DefaultMaxFileSize
	}
	if c.Debounce <= 0 {
		c.Debounce = DefaultDebounce
	}
	if c.MaxWait <= 0 {
		c.MaxWait = DefaultMaxWait
	}
	if c.ReconcileInterval == 0 {
		c.ReconcileInterval = DefaultReconcileInterval
	}
	if c.RetryMin <= 0 {
		c.RetryMin = DefaultRetryMin
	}
	if c.RetryMax <= 0 {
		c.RetryMax = DefaultRetryMax
	}
	return c, nil
}

// SyncObserver hears of the mirror's writes to the store.
type SyncObserver interface {
	// SyncDone: a sync (kind SyncFull) or a burst of live changes (SyncLive)
	// reached the store.
	SyncDone(project, kind string, upserts, deletes int, took time.Duration)
	// SyncLag: the time from a burst's first file event to its write.
	SyncLag(project string, lag time.Duration)
	// SyncFailed: a sync or burst did not reach the store.
	SyncFailed(project string)
}

// Kinds of SyncObserver.SyncDone.
const (
	SyncFull = "full"
	SyncLive = "live"
)
