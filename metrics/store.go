package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// storeMetrics are the Neo4j store's: its health, its statements, its
// connection pool as far as the driver lets us see it, and the age of
// the data derived from the whole graph. *Metrics implements
// neo4jstore.Observer with them (package neo4jstore is not imported
// here; cmd/vaultgraph checks the fit).
type storeMetrics struct {
	up          prometheus.Gauge
	stmtTime    *prometheus.HistogramVec
	stmtErrors  *prometheus.CounterVec
	inUse       prometheus.Gauge
	poolMax     prometheus.Gauge
	acquireTime prometheus.Histogram
	reloadTime  *prometheus.HistogramVec

	derivedMu sync.Mutex
	derived   map[[2]string]time.Time // (project, kind) → when it was computed
}

var derivedAgeDesc = prometheus.NewDesc("vaultgraph_derived_age_seconds",
	"Age of data derived from the whole graph and stored (PageRank...), by project and kind: now minus when it was computed.",
	[]string{"project", "kind"}, nil)

func newStoreMetrics() *storeMetrics {
	return &storeMetrics{
		up: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "vaultgraph_store_up",
			Help: "1 while the store answers, 0 while its circuit breaker is open (Neo4j did not answer a probe; calls fail at once).",
		}),
		stmtTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "vaultgraph_neo4j_statement_duration_seconds",
			Help: "Time of one Neo4j statement from its run to its last record, by statement (the cypher/ file name).",
			// 0.1 ms (an indexed lookup) to ~100 s (a large sync batch).
			Buckets: prometheus.ExponentialBuckets(0.0001, 3.2, 12),
		}, []string{"statement"}),
		stmtErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vaultgraph_neo4j_statement_errors_total",
			Help: "Neo4j statements that failed, by statement.",
		}, []string{"statement"}),
		inUse: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "vaultgraph_neo4j_sessions_in_use",
			Help: "Store calls holding a Neo4j session now, each with at most one pooled connection: the pool's connections in use (the driver does not report its idle ones).",
		}),
		poolMax: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "vaultgraph_neo4j_pool_max_connections",
			Help: "Size of the Neo4j driver's connection pool (neo4j.max_connections); minus sessions in use, the connections still available.",
		}),
		acquireTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "vaultgraph_neo4j_connection_acquire_seconds",
			Help: "Time from a store call opening its session to its first message on a connection: the pool's acquisition wait, a new connection's dial included.",
			// 10 µs (an idle pooled connection) to ~40 s (an exhausted pool).
			Buckets: prometheus.ExponentialBuckets(0.00001, 4, 12),
		}),
		reloadTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "vaultgraph_store_reload_duration_seconds",
			Help:    "Time to load or recompute a whole-graph structure, by kind (catalog, pagerank).",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10), // 1 ms to 4 min
		}, []string{"kind"}),
		derived: map[[2]string]time.Time{},
	}
}

func (s *storeMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{s.up, s.stmtTime, s.stmtErrors, s.inUse, s.poolMax, s.acquireTime, s.reloadTime, derivedAge{s}}
}

// derivedAge computes the ages at scrape time.
type derivedAge struct{ s *storeMetrics }

func (d derivedAge) Describe(ch chan<- *prometheus.Desc) { ch <- derivedAgeDesc }

func (d derivedAge) Collect(ch chan<- prometheus.Metric) {
	d.s.derivedMu.Lock()
	defer d.s.derivedMu.Unlock()
	for k, at := range d.s.derived {
		ch <- prometheus.MustNewConstMetric(derivedAgeDesc, prometheus.GaugeValue, time.Since(at).Seconds(), k[0], k[1])
	}
}

// StoreUp records whether the store answers (neo4jstore.Observer).
func (m *Metrics) StoreUp(up bool) {
	if m == nil {
		return
	}
	v := 0.0
	if up {
		v = 1
	}
	m.store.up.Set(v)
}

// Statement records one Neo4j statement's time, by name, and its failure
// (neo4jstore.Observer).
func (m *Metrics) Statement(name string, took time.Duration, ok bool) {
	if m == nil {
		return
	}
	m.store.stmtTime.WithLabelValues(name).Observe(took.Seconds())
	if !ok {
		m.store.stmtErrors.WithLabelValues(name).Inc()
	}
}

// Sessions records the store calls holding a session and the pool's size
// (neo4jstore.Observer).
func (m *Metrics) Sessions(inUse, max int) {
	if m == nil {
		return
	}
	m.store.inUse.Set(float64(inUse))
	m.store.poolMax.Set(float64(max))
}

// Acquired records a call's wait for a pooled connection
// (neo4jstore.Observer).
func (m *Metrics) Acquired(wait time.Duration) {
	if m == nil {
		return
	}
	m.store.acquireTime.Observe(wait.Seconds())
}

// Reloaded records the time a whole-graph structure took to load or
// recompute: kind is "catalog" or "pagerank" (neo4jstore.Observer).
func (m *Metrics) Reloaded(kind string, took time.Duration) {
	if m == nil {
		return
	}
	m.store.reloadTime.WithLabelValues(kind).Observe(took.Seconds())
}

// Derived records when data derived from project's whole graph (kind:
// "pagerank") was computed; vaultgraph_derived_age_seconds is the time
// since, at each scrape (neo4jstore.Observer).
func (m *Metrics) Derived(project, kind string, computedAt time.Time) {
	if m == nil {
		return
	}
	m.store.derivedMu.Lock()
	defer m.store.derivedMu.Unlock()
	m.store.derived[[2]string{project, kind}] = computedAt
}
