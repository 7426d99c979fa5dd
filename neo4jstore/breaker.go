package neo4jstore

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/vaultgraph/vaultgraph/core"
)

// breaker is the store's circuit breaker. A call that fails without the
// server answering (a timeout, a refused or dropped connection, a database
// that says it is unavailable), or still waits after ConnectTimeout, makes
// the store probe the server with a Bolt handshake on a new connection;
// when that fails too, the breaker opens: every call then fails at once
// with a *core.UnavailableError (a provider error), calls already waiting
// on the server are cancelled, and the server is probed (handshake and
// RETURN 1) every Config.ProbeInterval until it answers, which closes the
// breaker. A frozen Neo4j (SIGSTOP, a GC pause that never ends, a network
// partition that drops packets) thus costs the calls of its first seconds
// their wait, not every call its timeout one after another.
//
// The probe before opening keeps a slow statement that hit its timeout on
// a healthy server (a huge rename) from failing everyone else's calls.
type breaker struct {
	mu      sync.Mutex
	open    bool
	since   time.Time
	cause   error
	probing bool // a confirming probe or the probe loop runs
	// tripped ends when the breaker opens; calls in flight watch it.
	tripped context.Context
	trip    context.CancelCauseFunc
}

// errTripped is the cancellation cause of calls in flight when the
// breaker opens.
var errTripped = errors.New("neo4jstore: the circuit breaker opened")

// DefaultProbeInterval is how often an open breaker probes the server.
const DefaultProbeInterval = 2 * time.Second

// probeTimeout bounds one probe: a server that does not answer a Bolt
// handshake within it is down for our purposes. Generous, so that a
// server on a loaded machine is not taken for a dead one.
const probeTimeout = 5 * time.Second

func newBreaker() *breaker {
	b := &breaker{}
	b.tripped, b.trip = context.WithCancelCause(context.Background())
	return b
}

// check returns the error of an open breaker, nil when closed.
func (s *Neo4jStore) breakerCheck(op string) error {
	b := s.brk
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.open {
		return nil
	}
	return core.NewProviderError(op, s.unavailableLocked())
}

func (s *Neo4jStore) unavailableLocked() *core.UnavailableError {
	return &core.UnavailableError{Provider: "Neo4j", Since: s.brk.since, Every: s.cfg.ProbeInterval, Cause: s.brk.cause}
}

// breakerTripped is a context that ends when the breaker opens.
func (s *Neo4jStore) breakerTripped() context.Context {
	s.brk.mu.Lock()
	defer s.brk.mu.Unlock()
	return s.brk.tripped
}

// unanswered reports whether err says the server did not answer (as
// opposed to answering with an error of its own, or the caller giving
// up): the kind of failure that may open the breaker.
func unanswered(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	for _, domain := range []error{core.ErrNotFound, core.ErrInvalidArgument, core.ErrExists, core.ErrConflict, errTorn} {
		if errors.Is(err, domain) {
			return false
		}
	}
	var dbErr *neo4j.Neo4jError
	if errors.As(err, &dbErr) {
		return strings.HasSuffix(dbErr.Code, ".DatabaseUnavailable")
	}
	var usage *neo4j.UsageError
	if errors.As(err, &usage) {
		return false
	}
	var auth *neo4j.InvalidAuthenticationError
	return !errors.As(err, &auth)
}

// breakerFailed hears of a call that failed with err (its caller's
// context being parent). When the server may be down, one probe decides
// whether to open the breaker; it runs in the background so the failed
// call answers at once.
func (s *Neo4jStore) breakerFailed(parent context.Context, err error) {
	if errors.Is(parent.Err(), context.Canceled) || !unanswered(err) {
		return
	}
	s.suspect(err)
}

// suspect probes the server once (unless a probe runs or the breaker is
// open) and opens the breaker when the probe fails; cause is what made
// the store suspect the server. Besides failed calls, a call still
// waiting after Config.ConnectTimeout sets it off: a frozen server is
// found out then, not at the end of a call's (long) timeout, and the
// calls waiting on it are cancelled when the breaker opens.
func (s *Neo4jStore) suspect(cause error) {
	err := cause
	b := s.brk
	b.mu.Lock()
	if b.open || b.probing || s.life.Err() != nil {
		b.mu.Unlock()
		return
	}
	b.probing = true
	b.mu.Unlock()
	s.background.Go(func() {
		if perr := s.probe(s.life, false); perr == nil || s.life.Err() != nil {
			b.mu.Lock()
			b.probing = false
			b.mu.Unlock()
			return
		}
		b.mu.Lock()
		b.open, b.since, b.cause = true, time.Now(), err
		b.trip(errTripped)
		b.mu.Unlock()
		s.log.Warn("neo4j does not answer; calls fail at once until it does (circuit breaker open)",
			"uri", s.cfg.URI, "probe_every", s.cfg.ProbeInterval, "err", err)
		s.observer().StoreUp(false)
		s.probeUntilUp()
	})
}

// probeUntilUp probes the server every Config.ProbeInterval until it
// answers (closing the breaker) or the store is closed.
func (s *Neo4jStore) probeUntilUp() {
	tick := time.NewTicker(s.cfg.ProbeInterval)
	defer tick.Stop()
	for {
		select {
		case <-s.life.Done():
			return
		case <-tick.C:
		}
		if err := s.probe(s.life, true); err != nil {
			s.log.Debug("neo4j probe failed", "err", err)
			continue
		}
		s.renewDriver()
		b := s.brk
		b.mu.Lock()
		down := time.Since(b.since)
		b.open, b.probing, b.cause = false, false, nil
		b.tripped, b.trip = context.WithCancelCause(context.Background())
		b.mu.Unlock()
		s.log.Info("neo4j answers again; calls go through (circuit breaker closed)", "uri", s.cfg.URI, "down", down.Round(time.Millisecond))
		s.observer().StoreUp(true)
		return
	}
}

// probe asks whether the server answers: the Bolt handshake on a new
// connection (a pooled one may hold bytes the server sent before it
// froze; only a fresh one proves that it answers now), and with query
// also a trivial statement on a session of its own. Opening the breaker
// takes a failed handshake: a server that answers it but is slow to run
// statements (a loaded machine, a large sync) is busy, not down, and its
// calls are better left to their own timeouts. Closing it takes both.
func (s *Neo4jStore) probe(ctx context.Context, query bool) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if err := handshake(ctx, s.cfg.URI, s.tlsConf, probeTimeout); err != nil || !query {
		return err
	}
	session := s.driver().NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeRead, DatabaseName: s.cfg.Database})
	defer func() { _ = session.Close(context.WithoutCancel(ctx)) }()
	res, err := session.Run(ctx, stmtHealthProbe.text, nil)
	if err == nil {
		_, err = res.Consume(ctx)
	}
	return err
}

// BreakerOpen reports whether the circuit breaker is open: the store
// fails every call at once because Neo4j did not answer.
func (s *Neo4jStore) BreakerOpen() bool {
	s.brk.mu.Lock()
	defer s.brk.mu.Unlock()
	return s.brk.open
}

// renewDriver replaces the driver with a new one, so that no call gets a
// pooled connection from before the outage: a connection whose call was
// cancelled while the server was frozen may still get that call's answer
// after it thaws, and the next call on it waited out its whole timeout
// (seen in TestBreakerFailsFastWhileNeo4jIsFrozen). The old driver is
// closed once any call still using it has had its timeout.
func (s *Neo4jStore) renewDriver() {
	d, err := s.newDriver()
	if err != nil {
		s.log.Warn("neo4j: cannot renew the driver after an outage; keeping the old one", "err", err)
		return
	}
	// One connection before the swap publishes the driver: the driver sets
	// up its connector on its first connection without a lock
	// (neo4j-go-driver v5.28.4, connector.go:55), so calls racing to make
	// a new driver's first connection are a data race (the race detector
	// stopped serve after a Neo4j restart in TestNeo4jFaults). Made here,
	// that write comes before every call that loads the driver. Its
	// outcome does not matter: the connector is set up before the dial.
	vctx, cancel := context.WithTimeout(s.life, s.cfg.ConnectTimeout)
	if err := d.VerifyConnectivity(vctx); err != nil {
		s.log.Debug("neo4j: the renewed driver's first connection failed; calls will try again", "err", err)
	}
	cancel()
	old := s.driverRef.Swap(&driverRef{d})
	s.background.Go(func() {
		select {
		case <-s.life.Done():
		case <-time.After(s.cfg.Timeout):
		}
		_ = old.Close(context.Background())
	})
}
