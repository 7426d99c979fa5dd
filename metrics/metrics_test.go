package metrics

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestToolCallsAreCountedByOutcomeAndCode(t *testing.T) {
	m := New()
	m.ToolCall("get_node", "ok", "", 2*time.Millisecond)
	m.ToolCall("get_node", "error_result", "INVALID_PARAMS", time.Millisecond)
	m.ToolCall("read_note", "error_result", "provider_error", time.Millisecond)
	m.ToolCall("get_hubs", "error_result", "PROVIDER_ERROR", time.Millisecond)
	if got := testutil.ToFloat64(m.toolCalls.WithLabelValues("get_node", "ok")); got != 1 {
		t.Errorf("ok calls = %v", got)
	}
	if got := testutil.ToFloat64(m.toolErrors.WithLabelValues("get_node", "INVALID_PARAMS")); got != 1 {
		t.Errorf("INVALID_PARAMS = %v", got)
	}
	// Store errors: the provider error codes of every toolset, and nothing else.
	if got := testutil.CollectAndCount(m.storeErrors); got != 2 {
		t.Errorf("store error series = %d, want get_hubs and read_note", got)
	}
	if got := testutil.CollectAndCount(m.toolDuration); got != 3 {
		t.Errorf("latency series = %d, want one per tool", got)
	}
}

func TestANilMetricsRecordsNothing(t *testing.T) {
	var m *Metrics
	m.ToolCall("x", "ok", "", 0)
	m.SessionsOpen(1)
	m.SessionOpened()
	m.SessionRefused("total")
	m.HTTPRefused("origin")
	m.SyncDone("p", SyncFull, 1, 0, time.Second)
	m.SyncLag("p", time.Second)
	m.SyncFailed("p")
}

func TestServeExposesTheMetrics(t *testing.T) {
	m := New()
	m.SyncDone("default", SyncLive, 3, 1, 20*time.Millisecond)
	m.SyncLag("default", 150*time.Millisecond)
	m.SessionsOpen(2)
	addr, err := m.Serve(t.Context(), "127.0.0.1:0", "", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+addr.String()+Path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	body := string(b)
	for _, want := range []string{
		`vaultgraph_sync_notes_total{op="upsert",project="default"} 3`,
		`vaultgraph_sync_notes_total{op="delete",project="default"} 1`,
		`vaultgraph_sync_runs_total{kind="live",project="default"} 1`,
		`vaultgraph_sync_lag_seconds{project="default"} 0.15`,
		`vaultgraph_http_sessions_open 2`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// TestServeRequiresTheToken: with a token, /metrics answers 401 without
// it or with another, and the metrics with it (issue 43).
func TestServeRequiresTheToken(t *testing.T) {
	m := New()
	addr, err := m.Serve(t.Context(), "127.0.0.1:0", "s3cret", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	get := func(auth string) int {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+addr.String()+Path, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for auth, want := range map[string]int{"": http.StatusUnauthorized, "Bearer wrong": http.StatusUnauthorized, "s3cret": http.StatusUnauthorized, "Bearer s3cret": http.StatusOK} {
		if got := get(auth); got != want {
			t.Errorf("Authorization %q: %d, want %d", auth, got, want)
		}
	}
}
