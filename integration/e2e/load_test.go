package e2e

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// loadCallsEnv overrides the calls per client of TestLoad.
const loadCallsEnv = "VAULTGRAPH_LOAD_CALLS"

// idleClosed closes the test's own idle keep-alive connections (the
// clients share http.DefaultTransport, which keeps two per host), so that
// what stays open on the server is the server's doing.
// idleTimeout bounds the wait for the server to let go of connections and
// files after its clients closed: it normally takes milliseconds; the
// bound is for a loaded machine.
const idleTimeout = 60 * time.Second

func idleClosed() bool {
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	return true
}

// httpConns counts pid's TCP connections whose local port is port: the
// server side of its HTTP clients' connections (the listener excluded).
func httpConns(t *testing.T, pid int, port string) int {
	t.Helper()
	p, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(":%04X", p)
	n := 0
	for _, f := range []string{"tcp", "tcp6"} {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, f))
		for line := range strings.Lines(string(b)) {
			fields := strings.Fields(line)
			// sl local_address rem_address st ...; st 0A is LISTEN, 06 TIME_WAIT
			if len(fields) > 3 && strings.HasSuffix(fields[1], want) && fields[3] != "0A" && fields[3] != "06" {
				n++
			}
		}
	}
	return n
}

// procCounts returns the open file descriptors and OS threads of pid.
func procCounts(t *testing.T, pid int) (fds, threads int) {
	t.Helper()
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "Threads:"); ok {
			threads, _ = strconv.Atoi(strings.TrimSpace(rest))
		}
	}
	return len(entries), threads
}

// TestLoad runs "serve --http" under concurrent MCP clients, each making
// a mix of reads (90%) and writes (10%: create, update, delete of notes
// of its own, each an fsynced file write) over loopback: every call succeeds, the answers are right, and
// once the clients are gone the server holds no more file descriptors
// than before (connections and files are all released). The latency
// percentiles are printed. Embedded store: 64 clients × 1,000 calls, as
// issue #12 asks, in CI too; Neo4j: 8 × 100 (its latency is the JVM's).
func TestLoad(t *testing.T) {
	t.Parallel()
	forEachStoreSharing(t, func(t *testing.T, st store) {
		// VAULTGRAPH_LOAD_CALLS changes the calls per client (make soak:
		// 1,000). 250 in CI: 64 × 1,000 under the race detector ran the
		// suite's last 9 minutes on its own.
		clients, calls := 64, 250
		if st.neo4j != nil {
			clients, calls = 8, 100
		}
		if v, err := strconv.Atoi(os.Getenv(loadCallsEnv)); err == nil && v > 0 {
			calls = v
		}
		vault := copyVault(t, nil)
		h := startHTTP(t, st, vault, "127.0.0.1:0")
		pid := h.cmd.Process.Pid
		_, port, _ := strings.Cut(h.addr, ":")
		// A warm-up round opens what the server keeps for its lifetime (the
		// Neo4j connection pool, the runtime's threads); the measured round
		// must not hold more once its clients are gone.
		runLoad(t, h, "warm", 8, 20)
		if !eventually(idleTimeout, func() bool { return idleClosed() && httpConns(t, pid, port) == 0 }) {
			t.Errorf("%d HTTP connections still open after the warm-up", httpConns(t, pid, port))
		}
		fds0, threads0 := procCounts(t, pid)
		latencies, errs, elapsed := runLoad(t, h, "load", clients, calls)
		fds1, threads1 := procCounts(t, pid)
		// The clients closed their connections; the server lets go of them.
		var fds2, threads2 int
		if !eventually(idleTimeout, func() bool { return idleClosed() && httpConns(t, pid, port) == 0 }) {
			t.Errorf("%d HTTP connections still open %s after the clients closed", httpConns(t, pid, port), idleTimeout)
		}
		if !eventually(idleTimeout, func() bool { fds2, threads2 = procCounts(t, pid); return fds2 <= fds0 }) {
			t.Errorf("file descriptors: %d before the load, %d at its end, still %d %s after", fds0, fds1, fds2, idleTimeout)
		}
		slices.Sort(latencies)
		pct := func(p float64) time.Duration {
			return latencies[min(len(latencies)-1, int(float64(len(latencies))*p))].Round(10 * time.Microsecond)
		}
		t.Logf("load (%s): %d clients × %d calls = %d in %s (%.0f calls/s); latency p50 %s p95 %s p99 %s max %s; %d errors; fds %d → %d → %d, threads %d → %d → %d; peak RSS %d MiB",
			st.name, clients, calls, len(latencies), elapsed.Round(time.Millisecond), float64(len(latencies))/elapsed.Seconds(),
			pct(0.50), pct(0.95), pct(0.99), latencies[len(latencies)-1].Round(10*time.Microsecond), len(errs),
			fds0, fds1, fds2, threads0, threads1, threads2, peakRSS(t, pid))
		for _, e := range errs {
			if e != "" {
				t.Error(e)
			}
		}
		if h.exited() {
			t.Fatalf("the server exited under load; stderr:\n%s", h.stderr.String())
		}
	})
}

// runLoad runs clients concurrent clients of h making calls calls each
// and returns every call's latency and the failures (at most 20 described).
func runLoad(t *testing.T, h *httpServer, round string, clients, calls int) ([]time.Duration, []string, time.Duration) {
	t.Helper()
	{

		var (
			mu        sync.Mutex
			latencies []time.Duration
			errs      []string
			wg        sync.WaitGroup
		)
		start := time.Now()
		for w := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(w), 1))
				c := httpClient(t, h.url(), rwToken)
				defer c.Close()
				initialize(t, c)
				own := 0 // notes of this client that exist: w-<i>
				mine := make([]time.Duration, 0, calls)
				fail := func(format string, args ...any) {
					mu.Lock()
					defer mu.Unlock()
					if len(errs) < 20 {
						errs = append(errs, fmt.Sprintf("client %d: ", w)+fmt.Sprintf(format, args...))
					} else {
						errs = append(errs, "")
					}
				}
				for i := range calls {
					name, args, check := loadCall(rng, round, w, i, &own)
					t0 := time.Now()
					r, err := tryCall(t, c, name, args)
					mine = append(mine, time.Since(t0))
					if err != nil {
						fail("%s: %v", name, err)
						continue
					}
					if msg := check(r); msg != "" {
						fail("%s %v: %s", name, args["id"], msg)
					}
				}
				mu.Lock()
				latencies = append(latencies, mine...)
				mu.Unlock()
			}()
		}
		wg.Wait()
		return latencies, errs, time.Since(start)
	}
}

// loadCall picks client w's i-th call and how to check its answer. own
// counts the client's notes w-0 … w-(own-1) that exist.
func loadCall(rng *rand.Rand, round string, w, i int, own *int) (string, map[string]any, func(reply) string) {
	ok := func(prefix string) func(reply) string {
		return func(r reply) string {
			if r.isError || !strings.HasPrefix(r.text, prefix) {
				return fmt.Sprintf("answer %.200s", r.text)
			}
			return ""
		}
	}
	id := func(k int) string { return fmt.Sprintf("load/%s-w%d-%d.md", round, w, k) }
	switch p := rng.IntN(100); {
	case p < 30:
		return "get_node", map[string]any{"id": "home.md", "depth": rng.IntN(2)}, ok(`{"id":"home.md"`)
	case p < 45:
		return "get_neighbors", map[string]any{"id": "projects/search service.md"}, ok(`[{"id":`)
	case p < 55:
		return "search_by_tags", map[string]any{"tags": []string{"concept"}}, ok(`[{"id":`)
	case p < 65:
		return "find_path", map[string]any{"source": "home.md", "target": "concepts/bm25.md"}, ok(`{"path":["home.md"`)
	case p < 75:
		return "get_hubs", map[string]any{"metric": []string{"in_degree", "pagerank"}[rng.IntN(2)]}, ok(`[{"id":`)
	case p < 90:
		return "random_node", map[string]any{}, ok(`{"id":`)
	case p < 95 || *own == 0:
		k := *own
		*own++
		return "create_node", map[string]any{"title": fmt.Sprintf("%s-w%d-%d", round, w, k), "content": fmt.Sprintf("call %d links [[Home]]", i), "directory": "load"},
			ok(fmt.Sprintf(`{"id":%q`, id(k)))
	case p < 98:
		return "update_node", map[string]any{"id": id(rng.IntN(*own)), "content": fmt.Sprintf("updated by call %d", i)}, ok(`{"id":"load/`)
	default:
		*own--
		return "delete_node", map[string]any{"id": id(*own)}, ok(`{"deleted":true}`)
	}
}
