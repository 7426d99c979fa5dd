package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
)

const providerError = "PROVIDER_ERROR"

// shortTimeout makes calls to a stopped Neo4j fail in seconds, not the
// default 30.
const shortTimeout = "VAULTGRAPH_NEO4J_TIMEOUT=5s"

// restartTimeout bounds the convergence after Neo4j is back: the
// watcher's retry backoff is at most 30 s.
const restartTimeout = 90 * time.Second

// TestNeo4jFaults stops Neo4j (the local launcher's, so it needs no
// NEO4J_URI) under a running serve: during the initial sync and during
// live edits. The process stays up, tools answer PROVIDER_ERROR while the
// database is down, and once it is back the graph converges to the vault
// with no manual resync.
func TestNeo4jFaults(t *testing.T) {
	t.Parallel()
	t.Run("during live edits", func(t *testing.T) {
		st := neo4jStore(t)
		st.env = append(st.env, shortTimeout)
		vault := copyVault(t, nil)
		args := append([]string{"serve", "--vault", vault}, st.args...)
		c, sp := stdioClient(t, processEnv(t, st), args)
		initialize(t, c)
		// A cold Neo4j can take longer than the short timeout at first.
		if !eventually(readyTimeout, func() bool {
			r, err := tryCall(t, c, "get_node", map[string]any{"id": "home.md"})
			return err == nil && !r.isError && r.text != "null"
		}) {
			t.Fatal("home.md missing before the fault")
		}
		if err := st.neo4j.Stop(t); err != nil {
			t.Fatal(err)
		}
		down := time.Now()
		wantProviderErrors(t, c)
		// The vault keeps changing while the database is down.
		writeFile(t, vault, "faults/while down.md", "---\ntags: [fault]\n---\nWritten while Neo4j was down; see [[Home]].")
		writeFile(t, vault, "Home.md", "# Home\n\nRewritten while Neo4j was down: [[BM25]].")
		if err := os.Remove(filepath.Join(vault, "daily", "2024-03-04.md")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second) // the watcher fails to write them and queues them
		wantProviderErrors(t, c)
		if err := st.neo4j.Start(t); err != nil {
			t.Fatal(err)
		}
		up := time.Now()
		converge(t, c, vault, sp)
		t.Logf("neo4j faults (live edits): down %s, converged %s after the restart", up.Sub(down).Round(time.Millisecond), time.Since(up).Round(time.Millisecond))
	})
	t.Run("during the initial sync", func(t *testing.T) {
		st := neo4jStore(t)
		st.env = append(st.env, shortTimeout)
		extra := map[string]string{}
		for i := range 30 {
			extra[fmt.Sprintf("bulk/note %02d.md", i)] = fmt.Sprintf("Bulk note %d links [[note %02d]] and [[Home]].", i, (i+1)%30)
		}
		vault := copyVault(t, extra)
		// Neo4j goes down while serve starts: the stop (a clean shutdown)
		// overlaps the connection and the sync, so the process meets the
		// fault at start (it opens the store once it answers) or during
		// the sync (the watcher retries the queued notes).
		stopped := make(chan error, 1)
		go func() { stopped <- st.neo4j.Stop(t) }()
		args := append([]string{"serve", "--vault", vault}, st.args...)
		c, sp := stdioClient(t, processEnv(t, st), args)
		initialize(t, c)
		if err := <-stopped; err != nil {
			t.Fatal(err)
		}
		_, synced := findLog(sp.stderr.String(), "vault: sync done")
		_, lazy := findLog(sp.stderr.String(), "the store is unreachable; starting without it and retrying")
		wantProviderErrors(t, c)
		if err := st.neo4j.Start(t); err != nil {
			t.Fatal(err)
		}
		up := time.Now()
		converge(t, c, vault, sp)
		t.Logf("neo4j faults (initial sync; the sync finished before the stop: %v, Neo4j was down at start: %v): converged %s after the restart",
			synced, lazy, time.Since(up).Round(time.Millisecond))
	})
}

// wantProviderErrors checks that reads and a write answer PROVIDER_ERROR
// while the store is down.
func wantProviderErrors(t *testing.T, c *client.Client) {
	t.Helper()
	wantCode(t, c, providerError, "get_node", map[string]any{"id": "home.md"})
	wantCode(t, c, providerError, "get_hubs", map[string]any{})
	wantCode(t, c, providerError, "search_by_tags", map[string]any{"tags": []string{"concept"}})
}

// converge waits until the graph c serves equals a fresh sync of vault.
func converge(t *testing.T, c *client.Client, vault string, sp *stdioProcess) {
	t.Helper()
	ref := referenceGraph(t, vault)
	var diff string
	ok := eventually(restartTimeout, func() bool {
		r, err := tryCall(t, c, "get_hubs", map[string]any{"limit": 50})
		if err != nil || r.isError {
			diff = fmt.Sprintf("get_hubs: %v %.200s", err, r.text)
			return false
		}
		diff = graphDiff(t, c, ref)
		return diff == ""
	})
	if !ok {
		t.Fatalf("the graph did not converge to the vault within %s of the restart:\n%s\nvaultgraph stderr:\n%s", restartTimeout, diff, sp.stderr.String())
	}
}
