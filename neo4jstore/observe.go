package neo4jstore

import (
	"sync/atomic"
	"time"
)

// Observer hears what the store does, for metrics (package metrics
// implements it; neo4jstore does not import it). Its methods are called on
// the store's hot path: they must be quick and safe for concurrent use.
type Observer interface {
	// StoreUp says whether Neo4j answers: false when the circuit breaker
	// opens, true when it closes again (and once at Open).
	StoreUp(up bool)
	// Statement reports one statement's time from its run to its last
	// record, by name (the cypher/ file), and whether it succeeded.
	Statement(name string, took time.Duration, ok bool)
	// Sessions reports the store calls holding a session, so a pooled
	// connection, now (in use) beside the pool's size.
	Sessions(inUse, max int)
	// Acquired reports how long a call waited from opening its session
	// to its first message on a connection (the pool's acquisition wait,
	// a new connection's dial and handshake included).
	Acquired(wait time.Duration)
	// Reloaded reports the time a whole-graph structure took to load or
	// recompute: kind "catalog" (the note catalog) or "pagerank".
	Reloaded(kind string, took time.Duration)
	// Derived reports when data derived from project's whole graph (kind
	// "pagerank") was computed, for its age.
	Derived(project, kind string, computedAt time.Time)
}

// nopObserver is the Observer of a store without one.
type nopObserver struct{}

func (nopObserver) StoreUp(bool)                          {}
func (nopObserver) Statement(string, time.Duration, bool) {}
func (nopObserver) Sessions(int, int)                     {}
func (nopObserver) Acquired(time.Duration)                {}
func (nopObserver) Reloaded(string, time.Duration)        {}
func (nopObserver) Derived(string, string, time.Time)     {}

func (s *Neo4jStore) observer() Observer { return s.cfg.Observer }

// sessionsInUse counts the calls holding a session.
func (s *Neo4jStore) sessionOpened() {
	s.observer().Sessions(int(s.inUse.Add(1)), s.cfg.MaxConnections)
}

func (s *Neo4jStore) sessionClosed() {
	s.observer().Sessions(int(s.inUse.Add(-1)), s.cfg.MaxConnections)
}

// acquireTimer is a Bolt logger that reports, once, the time from its
// creation (a session opened) to the session's first message on a
// connection. The driver calls a session's Bolt logger only when one is
// set; the store sets one only when an Observer listens.
type acquireTimer struct {
	start time.Time
	done  atomic.Bool
	obs   Observer
}

func (a *acquireTimer) first() {
	if a.done.CompareAndSwap(false, true) {
		a.obs.Acquired(time.Since(a.start))
	}
}

func (a *acquireTimer) LogClientMessage(string, string, ...any) { a.first() }
func (a *acquireTimer) LogServerMessage(string, string, ...any) {}
