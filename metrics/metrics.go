// Package metrics holds vaultgraph's Prometheus metrics and serves them.
// `serve --http` exposes them on an address of their own (metrics.addr,
// off by default), never on the MCP port, so that the metrics need no
// token and the MCP port shows nothing without one.
//
// What is measured: every tool call by tool and outcome, with its latency;
// tool calls that failed because the store, the vault or the embedder did
// (store errors); the HTTP transport's open sessions and its refusals;
// and, fed by whoever runs the vault sync through the Sync* methods, syncs
// with their notes and the lag of live changes.
package metrics

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Path is where the metrics are served.
const Path = "/metrics"

// Metrics is one process's metrics, in a registry of its own (so tests
// can make several). A nil *Metrics records nothing: callers need not
// check whether metrics are on.
type Metrics struct {
	reg *prometheus.Registry

	toolCalls     *prometheus.CounterVec
	toolDuration  *prometheus.HistogramVec
	toolErrors    *prometheus.CounterVec
	storeErrors   *prometheus.CounterVec
	sessionsOpen  prometheus.Gauge
	sessionsTotal prometheus.Counter
	sessionRefuse *prometheus.CounterVec
	httpRefused   *prometheus.CounterVec
	syncRuns      *prometheus.CounterVec
	syncNotes     *prometheus.CounterVec
	syncErrors    *prometheus.CounterVec
	syncDuration  *prometheus.HistogramVec
	syncLag       *prometheus.GaugeVec
	syncLast      *prometheus.GaugeVec
	store         *storeMetrics // see store.go
}

// New returns the metrics of one process, with Go's runtime and process
// metrics beside vaultgraph's own.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.toolCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vaultgraph_tool_calls_total",
		Help: "Tool calls answered, by tool and outcome: ok; error_result (the model was told: bad arguments, not found, or a store error); error (a bug: the handler failed).",
	}, []string{"tool", "outcome"})
	m.toolDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "vaultgraph_tool_call_duration_seconds",
		Help: "Time from a tool call's arguments to its answer, by tool.",
		// From 0.5 ms (a read on the embedded store) to 12 s (a rename
		// with thousands of referrers).
		Buckets: prometheus.ExponentialBuckets(0.0005, 2.5, 12),
	}, []string{"tool"})
	m.toolErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vaultgraph_tool_errors_total",
		Help: "Error results by tool and the toolset's error code (INVALID_PARAMS, note_not_found...).",
	}, []string{"tool", "code"})
	m.storeErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vaultgraph_store_errors_total",
		Help: "Tool calls that failed because the store, the vault or the embedder did (the PROVIDER_ERROR codes), by tool.",
	}, []string{"tool"})
	m.sessionsOpen = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "vaultgraph_http_sessions_open",
		Help: "MCP sessions open on the streamable HTTP transport.",
	})
	m.sessionsTotal = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "vaultgraph_http_sessions_opened_total",
		Help: "MCP sessions opened on the streamable HTTP transport.",
	})
	m.sessionRefuse = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vaultgraph_http_sessions_refused_total",
		Help: "Initializes refused at a session limit, by limit (per_token, total).",
	}, []string{"limit"})
	m.httpRefused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vaultgraph_http_requests_refused_total",
		Help: "HTTP requests refused before reaching the MCP server, by reason (unauthorized, origin, host, invalid_request, duplicate_key, bad_id, uri_too_long, prompt_argument, too_large, no_session, session_not_found).",
	}, []string{"reason"})
	m.syncRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vaultgraph_sync_runs_total",
		Help: "Vault syncs and live batches written to the store, by project and kind (full, live).",
	}, []string{"project", "kind"})
	m.syncNotes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vaultgraph_sync_notes_total",
		Help: "Notes written to or deleted from the store by syncs, by project and op (upsert, delete).",
	}, []string{"project", "op"})
	m.syncErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vaultgraph_sync_errors_total",
		Help: "Syncs or live batches that failed (queued for a retry), by project.",
	}, []string{"project"})
	m.syncDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "vaultgraph_sync_duration_seconds",
		Help:    "Time a sync or live batch took, by project and kind.",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 10), // 1 ms to 4 min
	}, []string{"project", "kind"})
	m.syncLag = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "vaultgraph_sync_lag_seconds",
		Help: "For the last live batch, time from the oldest file change in it to its write to the store, by project.",
	}, []string{"project"})
	m.syncLast = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "vaultgraph_sync_last_success_timestamp_seconds",
		Help: "Unix time of the last sync or live batch that reached the store, by project.",
	}, []string{"project"})
	m.store = newStoreMetrics()
	m.reg.MustRegister(m.store.collectors()...)
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.toolCalls, m.toolDuration, m.toolErrors, m.storeErrors,
		m.sessionsOpen, m.sessionsTotal, m.sessionRefuse, m.httpRefused,
		m.syncRuns, m.syncNotes, m.syncErrors, m.syncDuration, m.syncLag, m.syncLast,
	)
	return m
}

// Handler serves the metrics in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Registry is where the metrics are registered (tests gather from it).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// ToolCall records one answered tool call. outcome is "ok",
// "error_result" or "error"; code is the error result's code ("" for
// others). A code naming a provider error counts as a store error.
func (m *Metrics) ToolCall(tool, outcome, code string, d time.Duration) {
	if m == nil {
		return
	}
	m.toolCalls.WithLabelValues(tool, outcome).Inc()
	m.toolDuration.WithLabelValues(tool).Observe(d.Seconds())
	if code != "" {
		m.toolErrors.WithLabelValues(tool, code).Inc()
		if strings.EqualFold(code, "PROVIDER_ERROR") {
			m.storeErrors.WithLabelValues(tool).Inc()
		}
	}
}

// SessionsOpen sets the number of open HTTP sessions.
func (m *Metrics) SessionsOpen(n int) {
	if m == nil {
		return
	}
	m.sessionsOpen.Set(float64(n))
}

// SessionOpened counts a new HTTP session.
func (m *Metrics) SessionOpened() {
	if m == nil {
		return
	}
	m.sessionsTotal.Inc()
}

// SessionRefused counts an initialize refused at a limit ("per_token" or
// "total").
func (m *Metrics) SessionRefused(limit string) {
	if m == nil {
		return
	}
	m.sessionRefuse.WithLabelValues(limit).Inc()
}

// HTTPRefused counts a request the transport refused, by reason.
func (m *Metrics) HTTPRefused(reason string) {
	if m == nil {
		return
	}
	m.httpRefused.WithLabelValues(reason).Inc()
}

// Sync kinds.
const (
	SyncFull = "full" // a scan of the whole vault (start, periodic rescan, `sync`)
	SyncLive = "live" // a batch of watcher events
)

// SyncDone records a sync or live batch of project that reached the
// store: kind is SyncFull or SyncLive, upserts and deletes count the
// notes written and removed, took is how long it ran. The vault sync
// calls it (hook for the vault's mirror).
func (m *Metrics) SyncDone(project, kind string, upserts, deletes int, took time.Duration) {
	if m == nil {
		return
	}
	m.syncRuns.WithLabelValues(project, kind).Inc()
	m.syncNotes.WithLabelValues(project, "upsert").Add(float64(upserts))
	m.syncNotes.WithLabelValues(project, "delete").Add(float64(deletes))
	m.syncDuration.WithLabelValues(project, kind).Observe(took.Seconds())
	m.syncLast.WithLabelValues(project).Set(float64(time.Now().UnixNano()) / 1e9)
}

// SyncLag records, for a live batch of project, the time from the oldest
// file change it holds to its write to the store.
func (m *Metrics) SyncLag(project string, lag time.Duration) {
	if m == nil {
		return
	}
	m.syncLag.WithLabelValues(project).Set(lag.Seconds())
}

// SyncFailed counts a sync or live batch of project that did not reach
// the store.
func (m *Metrics) SyncFailed(project string) {
	if m == nil {
		return
	}
	m.syncErrors.WithLabelValues(project).Inc()
}

// Serve serves the metrics on addr until ctx ends. It listens before it
// returns (a port already in use is an error at once) and serves in the
// background; the returned address is the one listened on. A token that
// is not empty must come with every request (Authorization: Bearer
// token), else 401. The caller decides where it may listen
// (config.MetricsAddr, checkMetricsAddr: loopback, or a token).
func (m *Metrics) Serve(ctx context.Context, addr, token string, logger *slog.Logger) (net.Addr, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle(Path, requireToken(token, m.Handler()))
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second, // a scraper sends a bodiless GET
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics server stopped", "err", err)
		}
	}()
	logger.Info("serving metrics", "addr", ln.Addr().String(), "path", Path)
	return ln.Addr(), nil
}

// requireToken answers 401 to a request without "Authorization: Bearer
// token" (compared in constant time); an empty token lets every request
// through.
func requireToken(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	want := sha256.Sum256([]byte("Bearer " + token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := sha256.Sum256([]byte(r.Header.Get("Authorization")))
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="vaultgraph metrics"`)
			http.Error(w, "metrics need a token: send Authorization: Bearer <metrics.token>", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
