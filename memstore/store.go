package memstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// StateFileName is the bbolt file Open keeps in its state directory.
const StateFileName = "vaultgraph-state.db"

// DefaultLockTimeout is how long Open waits for another process to release
// the state directory before failing with ErrStateLocked.
const DefaultLockTimeout = time.Second

var (
	// ErrStateLocked reports that another process has the state directory
	// open. Only one vaultgraph process may use a state directory at a time.
	ErrStateLocked = errors.New("state directory is in use by another process")
	// ErrClosed reports a call on a closed Store.
	ErrClosed = errors.New("memstore: store is closed")
)

// Store is the embedded core.StoreProvider. The zero value is not usable; create
// one with New or Open.
type Store struct {
	mu       sync.RWMutex
	projects map[string]*graph // loaded projects; nil for one without notes

	kv     *kv.DB
	closed atomic.Bool

	// dir is the state directory (Open's; "" for New), named by the
	// warnings that tell the user to delete it.
	dir string
	// logger hears what goes wrong where no caller gets an error: the
	// background load of a project's search index (load.go, warnLoad), a
	// neighbour shown without its damaged body (warnDamagedBody).
	logger *slog.Logger
	// damagedBodies: the notes whose damaged body was logged, once each
	// (project + "\x00" + ID).
	damagedBodies sync.Map

	chunks chunkIndex // document chunks, see chunks.go

	mem memories // memory.go

	changes changeLog // changes.go

	// stamps: the versions at which NoteStates read each project (stamp.go).
	stamps struct {
		sync.Mutex
		read map[string]uint64
	}

	// spare is the value arena a staged write's last transaction used,
	// kept for its next call's (persist.go, takeArena).
	spare struct {
		sync.Mutex
		arena *valueArena
		gen   uint64 // moves at every take: an idle release checks it
	}

	// deferPostings: projects created from now on defer their keyword
	// postings (DeferKeywordPostings).
	deferPostings atomic.Bool
	// searchOnUse: a search index is loaded by its first use only
	// (LoadSearchOnUse).
	searchOnUse atomic.Bool

	// counted is the last count of an unloaded project's records
	// (CountNotes), valid while the file's version is the same.
	counted recordCount
}

// recordCount is a count of a project's note records at a version of the
// state file.
type recordCount struct {
	sync.Mutex
	project string
	version uint64
	n       int
}

// at returns the count if it is project's at version (not 0); the caller
// holds c.
func (c *recordCount) at(project string, version uint64) (n int, ok bool) {
	if version != 0 && c.project == project && c.version == version {
		return c.n, true
	}
	return 0, false
}

var (
	_ core.StoreProvider = (*Store)(nil)
	_ core.StatesStamper = (*Store)(nil)
)

// Option configures Open.
type Option func(*options)

type options struct {
	lockTimeout time.Duration
	logger      *slog.Logger
}

// WithLockTimeout sets how long Open waits for the state directory's lock
// (default DefaultLockTimeout).
func WithLockTimeout(d time.Duration) Option {
	return func(o *options) { o.lockTimeout = d }
}

// WithLogger sets the logger that hears what goes wrong in the store's
// background work, which no call returns: a part of a project's search
// index that could not be loaded from the state file is logged as a
// warning. By default such warnings are discarded; nil also discards.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.logger = l }
}

// discardLogger is the logger of a store given none.
var discardLogger = slog.New(slog.DiscardHandler)

// New returns a store that keeps everything in memory, project records
// included: for tests and throwaway use.
func New() *Store {
	return &Store{projects: map[string]*graph{}, kv: kv.NewMemory(), logger: discardLogger}
}

// Open returns a store whose durable data lives in dir (created if
// missing), in the file StateFileName. It fails with an error wrapping
// ErrStateLocked when another process holds dir for longer than the lock
// timeout. Notes start empty: the caller syncs them from the vault.
func Open(dir string, opts ...Option) (*Store, error) {
	o := options{lockTimeout: DefaultLockTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	if o.logger == nil {
		o.logger = discardLogger
	}
	db, err := kv.Open(filepath.Join(dir, StateFileName), o.lockTimeout)
	if errors.Is(err, kv.ErrLocked) {
		return nil, fmt.Errorf("memstore: open %s: %w (waited %s; is another vaultgraph running?)", dir, ErrStateLocked, o.lockTimeout)
	}
	if err != nil {
		return nil, fmt.Errorf("memstore: open %s: %w", dir, err)
	}
	return &Store{projects: map[string]*graph{}, kv: db, dir: dir, logger: o.logger}, nil
}

// Close releases the state file and its lock. Every later call fails with
// ErrClosed; closing twice is a no-op.
func (s *Store) Close(context.Context) error {
	if s.closed.Swap(true) {
		return nil
	}
	if err := s.kv.Close(); err != nil {
		return fmt.Errorf("memstore: close: %w", err)
	}
	return nil
}

// check fails when the store is closed or ctx is done.
func (s *Store) check(ctx context.Context) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return ctx.Err()
}

// graph returns the project's graph, loading it from disk at its first
// use (load.go), and starts the background load of its search index if
// that has not started yet (unless LoadSearchOnUse); nil when the project
// holds no notes.
func (s *Store) graph(project string) (*graph, error) {
	g, err := s.loadedGraph(project)
	if g != nil && !s.searchOnUse.Load() {
		g.startSearch()
	}
	return g, err
}

// LoadSearchOnUse is for a process that syncs and exits (a one-shot sync):
// the search index of a project loaded from disk (its vectors and keyword
// index, ~0.8 CPU-s at 100k notes) is then loaded by the first call that
// searches, not in the background from the first read on. Such a process
// mostly searches nothing: the load only kept a core busy and its exit
// waiting. StaleVectors answers from the disk meanwhile.
func (s *Store) LoadSearchOnUse() { s.searchOnUse.Store(true) }

// loadedGraph is graph without starting the search load.
func (s *Store) loadedGraph(project string) (*graph, error) {
	s.mu.RLock()
	g, ok := s.projects[project]
	s.mu.RUnlock()
	if ok {
		return g, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if g, ok := s.projects[project]; ok {
		return g, nil
	}
	g, err := s.loadGraph(project, nil)
	if err != nil {
		return nil, core.NewProviderError("read state", err)
	}
	s.projects[project] = g
	return g, nil
}

// graphForWrite returns the project's graph, creating it with the
// project's persisted vectors.
func (s *Store) graphForWrite(project string) (*graph, error) {
	g, err := s.graph(project)
	if g != nil || err != nil {
		return g, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g = s.projects[project]
	if g == nil {
		g = newGraph()
		g.search.keywords.deferred = s.deferPostings.Load()
		bad, err := s.loadVectors(project, g)
		if err != nil {
			return nil, core.NewProviderError("read state", err)
		}
		bad.report(s, project, "vectors", vectorsRebuilt)
		s.projects[project] = g
	}
	return g, nil
}

// forget drops the project's graph from memory after a failed write left
// it ahead of the disk: the next call loads it again from what the disk
// holds, which the failed transaction did not change.
func (s *Store) forget(project string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.projects[project]; g != nil {
		g.dropped = true // the caller holds g.mu
	}
	delete(s.projects, project)
}
