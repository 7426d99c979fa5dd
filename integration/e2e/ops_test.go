package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// TestSyncWatchServesStoreMetrics: sync --watch --metrics-addr, the worker
// a team runs beside its servers, serves /metrics (issue 44.7): its syncs,
// and the Neo4j store's health, statements by name, sessions in use, pool
// size and connection acquisition.
func TestSyncWatchServesStoreMetrics(t *testing.T) {
	t.Parallel()
	st := neo4jStore(t)
	vault := copyVault(t, nil)
	worker := startProc(t, processEnv(t, st), nil, append([]string{"sync", "--watch", "--vault", vault, "--metrics-addr", "127.0.0.1:0"}, st.args...)...)
	addr, _ := worker.waitLog(t, "serving metrics", readyTimeout)["addr"].(string)
	worker.waitLog(t, "vault: sync done", readyTimeout)
	code, body := httpGet(t, "http://"+addr+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{
		"vaultgraph_store_up 1",
		`vaultgraph_sync_runs_total{kind="full",project=`,
		`vaultgraph_neo4j_statement_duration_seconds_count{statement="write_`,
		`vaultgraph_neo4j_statement_duration_seconds_count{statement="status_components"}`,
		"vaultgraph_neo4j_sessions_in_use ",
		"vaultgraph_neo4j_pool_max_connections 50",
		"vaultgraph_neo4j_connection_acquire_seconds_count ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", body)
	}
}
