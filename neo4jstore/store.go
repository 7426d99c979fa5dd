package neo4jstore

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/config"

	"github.com/vaultgraph/vaultgraph/core"
)

// Neo4jStore is core.StoreProvider on Neo4j. It holds one driver (a connection pool) for
// the process and is safe for concurrent use. Every call opens a short
// session that shares one bookmark manager, so a read always sees the
// writes this Neo4jStore made before it, even on a cluster; on a routing
// URI reads go to the leader, so they see other processes' acknowledged
// writes too (consistency.go).
type Neo4jStore struct {
	// driverRef holds the driver (a connection pool); the circuit breaker
	// replaces it when the server answers again (see breaker.go).
	driverRef atomic.Pointer[driverRef]
	newDriver func() (neo4j.DriverWithContext, error)
	bookmarks neo4j.BookmarkManager
	cfg       Config
	log       *slog.Logger
	ranks     *ranker     // PageRank kept current in Neo4j, see ranks.go
	holder    string      // this Store as a lease holder, see lease.go
	vectors   vectorCache // memory.go
	memWords  memoryWords // keyword index of memory contents, memory_keyword.go

	// mirrorMaxDelta, when above 0, replaces defaultMirrorMaxDelta.
	mirrorMaxDelta atomic.Int64

	chunkIndex chunkVectorIndex // see chunks.go
	staged     stagedSizes      // see staged.go
	linksPage  int              // notes per read of a catalog's links, see loadLinks

	// ready is set once the server answered and the schema is migrated;
	// until then (a Lazy store) every call tries to get there first.
	ready   atomic.Bool
	readyMu sync.Mutex
	lastTry time.Time
	lastErr error
	vindex  vectorIndex // what is known of the vector index, see search.go
	mirrors mirrors     // note vectors mirrored for exact search, see mirror.go

	keywordStats keywordStats // IDF statistics of keyword search, see search.go
	catalogs     catalogs     // note IDs and tags for random and tagged picks, see catalog.go
	hubAnswers   hubAnswers   // get_hubs by degree, by change counter, see hubs.go

	brk     *breaker     // see breaker.go
	tlsConf *tls.Config  // trusted CAs of Config.TLSCAFile; nil: the system's
	inUse   atomic.Int64 // calls holding a session, for Observer.Sessions

	// life ends at Close; background work (mirror loads) runs within it.
	life       context.Context
	stop       context.CancelFunc
	background sync.WaitGroup
}

// migratingKey marks the context of the calls made while getting ready,
// which must not wait for readiness themselves.
type migratingKey struct{}

var _ core.StoreProvider = (*Neo4jStore)(nil)

// Open connects to Neo4j, checks that it answers and brings the schema up to
// date (see migrations.go). A server that cannot be reached gives an error
// satisfying core.IsProviderError; a bad Config an error naming the field.
func Open(ctx context.Context, cfg Config) (*Neo4jStore, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("neo4jstore: config: %w", err)
	}
	auth := neo4j.NoAuth()
	if cfg.User != "" {
		auth = neo4j.BasicAuth(cfg.User, cfg.Password, "")
	}
	tlsConf, err := cfg.tlsConfig()
	if err != nil {
		return nil, fmt.Errorf("neo4jstore: config: %w", err)
	}
	newDriver := func() (neo4j.DriverWithContext, error) {
		return neo4j.NewDriverWithContext(cfg.URI, auth, func(c *config.Config) {
			c.TlsConfig = tlsConf
			c.MaxConnectionPoolSize = cfg.MaxConnections
			c.MaxTransactionRetryTime = cfg.MaxRetryTime
			c.SocketConnectTimeout = cfg.ConnectTimeout
			c.ConnectionAcquisitionTimeout = cfg.Timeout
			c.UserAgent = "vaultgraph"
		})
	}
	driver, err := newDriver()
	if err != nil {
		return nil, fmt.Errorf("neo4jstore: open %s: %w", cfg.URI, err)
	}
	s := &Neo4jStore{
		newDriver: newDriver,
		bookmarks: neo4j.NewBookmarkManager(neo4j.BookmarkManagerConfig{}),
		cfg:       cfg,
		log:       cfg.Logger,
		ranks:     newRanker(),
		holder:    newHolderID(),
		staged:    defaultStagedSizes,
		linksPage: catalogLinksPage,
		brk:       newBreaker(),
		tlsConf:   tlsConf,
	}
	s.driverRef.Store(&driverRef{driver})
	s.life, s.stop = context.WithCancel(context.Background())
	err = s.open(ctx)
	if err == nil {
		return s, nil
	}
	var answered *neo4j.Neo4jError // the server answered: credentials, database, schema
	if cfg.Lazy && core.IsProviderError(err) && !errors.As(err, &answered) && !errors.Is(err, ErrNotBolt) && ctx.Err() == nil {
		s.log.Warn("the store is unreachable; starting without it and retrying", "uri", cfg.URI, "err", err)
		s.lastTry, s.lastErr = time.Now(), err
		return s, nil
	}
	s.stop()
	_ = driver.Close(context.WithoutCancel(ctx))
	return nil, err
}

// driverRef boxes the driver for atomic.Pointer.
type driverRef struct{ neo4j.DriverWithContext }

// driver is the current driver.
func (s *Neo4jStore) driver() neo4j.DriverWithContext { return s.driverRef.Load().DriverWithContext }

// awaitReady gets a Lazy store ready (connected, migrated) or returns why
// it is not, trying at most once per LazyRetryInterval.
func (s *Neo4jStore) awaitReady(ctx context.Context) error {
	if s.ready.Load() || ctx.Value(migratingKey{}) != nil {
		return nil
	}
	s.readyMu.Lock()
	defer s.readyMu.Unlock()
	if s.ready.Load() {
		return nil
	}
	if time.Since(s.lastTry) < LazyRetryInterval {
		return s.lastErr
	}
	s.lastTry = time.Now()
	if err := s.open(ctx); err != nil {
		s.lastErr = err
		return err
	}
	if s.cfg.ReadOnlySchema {
		s.log.Info("neo4j answers again", "uri", s.cfg.URI)
	} else {
		s.log.Info("neo4j answers again; connected and schema up to date", "uri", s.cfg.URI)
	}
	return nil
}

// open connects, checks the server and, unless Config.ReadOnlySchema,
// migrates the schema; then the store is ready. A port that does not
// speak Bolt, refused credentials and a server below MinServerVersion
// are errors wrapping ErrNotBolt, ErrAuthFailed and ErrServerTooOld.
func (s *Neo4jStore) open(ctx context.Context) error {
	if err := checkBolt(ctx, s.cfg.URI, s.tlsConf); err != nil {
		return fmt.Errorf("neo4jstore: connect to %s: %w", s.cfg.URI, core.NewProviderError("connect", err))
	}
	vctx, cancel := s.callContext(ctx)
	defer cancel()
	if err := s.driver().VerifyConnectivity(vctx); err != nil {
		if authFailed(err) {
			return fmt.Errorf("neo4jstore: connect to %s: %w: the server refused user %q and its password (check neo4j.user and neo4j.password): %w", s.cfg.URI, ErrAuthFailed, s.cfg.User, err)
		}
		return fmt.Errorf("neo4jstore: connect to %s: %w", s.cfg.URI, core.NewProviderError("connect", err))
	}
	mctx := context.WithValue(ctx, migratingKey{}, true)
	version, _, err := s.serverVersion(mctx)
	if err != nil {
		return err
	}
	if err := checkServerVersion(version); err != nil {
		return fmt.Errorf("neo4jstore: %s: %w", s.cfg.URI, err)
	}
	if !s.cfg.ReadOnlySchema {
		if err := s.migrate(mctx); err != nil {
			return err
		}
	}
	s.ready.Store(true)
	s.observer().StoreUp(true)
	return nil
}

// Close finishes the PageRank of projects this Store wrote to (see
// ranks.go), then releases the driver and its connections.
func (s *Neo4jStore) Close(ctx context.Context) error {
	if s.ready.Load() {
		s.finishRanks(ctx)
	}
	s.stop()
	s.background.Wait()
	if err := s.driver().Close(ctx); err != nil {
		return fmt.Errorf("neo4jstore: close: %w", err)
	}
	return nil
}

// callContext bounds a call by Config.Timeout unless ctx ends sooner.
func (s *Neo4jStore) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.cfg.Timeout)
}

// txn runs statements inside one managed transaction and remembers which
// one failed. Errors are returned exactly as the driver gave them: the
// driver decides whether to retry by their concrete type, so wrapping them
// here would turn off retries.
type txn struct {
	ctx    context.Context
	tx     runner
	failed *string
	log    *slog.Logger
	obs    Observer
}

// runner runs one statement: a managed transaction, or a session in
// auto-commit mode (autoCommit).
type runner interface {
	Run(ctx context.Context, cypher string, params map[string]any) (neo4j.ResultWithContext, error)
}

// autoCommit runs each statement as its own auto-commit transaction.
type autoCommit struct {
	session neo4j.SessionWithContext
	timeout time.Duration
}

func (a autoCommit) Run(ctx context.Context, cypher string, params map[string]any) (neo4j.ResultWithContext, error) {
	return a.session.Run(ctx, cypher, params, neo4j.WithTxTimeout(a.timeout))
}

// collect runs st and returns all its records. Each statement's time is
// logged at debug level: with --log-level debug, a slow sync or call names
// the statement that made it slow.
func (t txn) collect(st statement, params map[string]any) ([]*neo4j.Record, error) {
	start := time.Now()
	text := st.text
	if profileHook != nil {
		text = "PROFILE " + text
	}
	res, err := t.tx.Run(t.ctx, text, params)
	if err == nil {
		var records []*neo4j.Record
		if records, err = res.Collect(t.ctx); err == nil {
			if profileHook != nil {
				if sum, err := res.Consume(t.ctx); err == nil {
					profileHook(st.name, sum.Profile())
				}
			}
			took := time.Since(start)
			t.obs.Statement(st.name, took, true)
			t.log.Debug("neo4j statement", "name", st.name, "ms", took.Milliseconds(), "records", len(records))
			return records, nil
		}
	}
	t.obs.Statement(st.name, time.Since(start), false)
	*t.failed = st.name
	return nil, err
}

// single runs st and returns its one record, or nil when it gave none.
func (t txn) single(st statement, params map[string]any) (*neo4j.Record, error) {
	records, err := t.collect(st, params)
	if err != nil || len(records) == 0 {
		return nil, err
	}
	return records[0], nil
}

// profileHook, when set (tests only: TestProfileStagedWrite), runs every
// statement under PROFILE and is given its plan. Set it before the store's
// first statement and never while one runs.
var profileHook func(name string, plan neo4j.ProfiledPlan)

// read runs work in a read transaction (retried on transient failures, so
// work must start from scratch each time it is called).
func (s *Neo4jStore) read(ctx context.Context, op string, work func(t txn) error) error {
	return s.execute(ctx, op, neo4j.AccessModeRead, work)
}

// write runs work in a write transaction (retried like read).
func (s *Neo4jStore) write(ctx context.Context, op string, work func(t txn) error) error {
	return s.execute(ctx, op, neo4j.AccessModeWrite, work)
}

func (s *Neo4jStore) execute(parent context.Context, op string, mode neo4j.AccessMode, work func(t txn) error) error {
	if err := s.breakerCheck(op); err != nil {
		return fmt.Errorf("neo4jstore: %w", err)
	}
	if err := s.awaitReady(parent); err != nil {
		return fmt.Errorf("neo4jstore: %s: %w", op, err)
	}
	tctx, cancelTimeout := s.callContext(parent)
	defer cancelTimeout()
	// A call waiting on the server ends when the breaker opens.
	ctx, cancel := context.WithCancelCause(tctx)
	defer cancel(nil)
	stopWatch := context.AfterFunc(s.breakerTripped(), func() { cancel(errTripped) })
	defer stopWatch()
	sc := neo4j.SessionConfig{
		AccessMode:      s.sessionMode(mode), // reads go to the leader on a cluster: consistency.go
		DatabaseName:    s.cfg.Database,
		BookmarkManager: s.bookmarks,
	}
	if _, nop := s.cfg.Observer.(nopObserver); !nop {
		sc.BoltLogger = &acquireTimer{start: time.Now(), obs: s.cfg.Observer}
	}
	session := s.driver().NewSession(ctx, sc)
	s.sessionOpened()
	watchdog := time.AfterFunc(s.cfg.ConnectTimeout, func() {
		s.suspect(fmt.Errorf("%s: no answer within %s", op, s.cfg.ConnectTimeout))
	})
	defer watchdog.Stop()
	// Closing returns the connection to the pool; it must happen even when
	// ctx has ended, or the pool would leak a connection per cancelled call.
	defer func() { _ = session.Close(context.WithoutCancel(ctx)); s.sessionClosed() }()
	var failed string
	runWork := func(tx runner) error {
		var err error
		// A note caught half-way through a rewrite (errTorn) is read
		// again; the rewrite has committed by the time the query reruns.
		for range maxTornReads {
			failed = ""
			if err = work(txn{ctx: ctx, tx: tx, failed: &failed, log: s.log, obs: s.cfg.Observer}); !errors.Is(err, errTorn) {
				break
			}
		}
		return err
	}
	start := time.Now()
	var err error
	if mode == neo4j.AccessModeRead {
		err = s.readAutoCommit(ctx, session, runWork)
	} else {
		_, err = session.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
			return nil, runWork(tx)
		}, neo4j.WithTxTimeout(s.cfg.Timeout))
	}
	s.log.Debug("neo4j transaction", "op", op, "ms", time.Since(start).Milliseconds(), "ok", err == nil)
	if err == nil {
		return nil
	}
	// A new name, not op += ...: the watchdog's closure may still read op
	// (a data race the race detector caught in TestNeo4jFaults).
	failedOp := op
	if failed != "" {
		failedOp = op + " (" + failed + ")"
	}
	if errors.Is(context.Cause(ctx), errTripped) && parent.Err() == nil {
		return fmt.Errorf("neo4jstore: %w", s.breakerCheck(failedOp))
	}
	s.breakerFailed(parent, err)
	return s.translate(failedOp, err)
}

// readAutoCommit runs a read's statements as auto-commit transactions:
// one network round trip each, where a managed transaction (BEGIN with the
// first statement, then COMMIT) takes two; an indexed lookup at 100k notes
// went from 0.50 to 0.33 ms p50. Reads lose nothing by it: Neo4j
// transactions are read-committed, so the statements of a read transaction
// see commits made between them just as separate ones do, and the session's
// bookmark manager still makes each see this Store's earlier writes. Like a
// managed transaction, the read is run again from the start after a
// failure the driver calls retryable (a leader switch, a deadlock, a lost
// connection), with backoff, while ctx allows.
func (s *Neo4jStore) readAutoCommit(ctx context.Context, session neo4j.SessionWithContext, runWork func(runner) error) error {
	backoff := 10 * time.Millisecond
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := runWork(autoCommit{session: session, timeout: s.cfg.Timeout})
		if err != nil && ctx.Err() != nil {
			// The driver's error for a cancelled call does not wrap the
			// cause; callers branch on it (errors.Is(err, context.Canceled)).
			return fmt.Errorf("%w: %v", ctx.Err(), err)
		}
		if err == nil || !neo4j.IsRetryable(err) || attempt == maxReadAttempts {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

// maxReadAttempts bounds the runs of a read that keeps failing with
// retryable errors (the driver's managed transactions retry for 30 s).
const maxReadAttempts = 8

// maxTornReads bounds how often a read reruns after catching a note
// half-way through a rewrite; one rerun virtually always suffices.
const maxTornReads = 10

// constraintViolation is the Neo4j status code of a uniqueness violation.
const constraintViolation = "Neo.ClientError.Schema.ConstraintValidationFailed"

// translate maps a failed call to the error vaultgraph callers branch on:
// a uniqueness violation is core.ErrExists; anything else the database or
// the network did is a provider failure (the cause is kept for logs).
func (s *Neo4jStore) translate(op string, err error) error {
	var dbErr *neo4j.Neo4jError
	if errors.As(err, &dbErr) && dbErr.Code == constraintViolation {
		return fmt.Errorf("neo4jstore: %s: %w (%v)", op, core.ErrExists, err)
	}
	for _, domain := range []error{core.ErrNotFound, core.ErrInvalidArgument, core.ErrExists, core.ErrConflict} {
		if errors.Is(err, domain) {
			return fmt.Errorf("neo4jstore: %s: %w", op, err)
		}
	}
	// Debug only: the caller logs the failure once, at its boundary.
	s.log.Debug("neo4j call failed", "op", op, "err", err)
	return fmt.Errorf("neo4jstore: %w", core.NewProviderError(op, err))
}

// noLimit stands for "no limit" in statements that always take $limit.
const noLimit = int64(1) << 62

func limitParam(limit int) int64 {
	if limit <= 0 {
		return noLimit
	}
	return int64(limit)
}
