package memory_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math/bits"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/builtin"
	"github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/neo4jstore"
)

// benchMemories is the size of the memory set recall is measured on.
const benchMemories = 10_000

var topics = []string{"database", "editor", "testing", "deployment", "logging", "security", "api design", "caching", "frontend", "python"}
var verbs = []string{"prefers", "always uses", "avoids", "decided on", "noticed", "wants", "switched to", "documents", "reviews", "measures"}
var things = []string{"PostgreSQL", "dark mode", "table tests", "blue-green releases", "structured logs", "short-lived tokens", "REST", "Redis", "React", "type hints",
	"SQLite", "vim", "property tests", "canary releases", "JSON logs", "mTLS", "gRPC", "memcached", "Svelte", "mypy"}

// benchContent is the i-th synthetic memory: varied enough that recall
// ranks a real spread of scores.
func benchContent(i int) string {
	h := bits.RotateLeft64(uint64(i)*0x9E3779B97F4A7C15, 17)
	return fmt.Sprintf("The team %s %s for %s (note %d)", verbs[h%10], things[(h/10)%20], topics[(h/200)%10], i)
}

// fill stores n memories through the service, from several goroutines.
func fill(b *testing.B, svc *memory.Service, n int) {
	b.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				_, _, err := svc.Store(ctx, memory.StoreInput{Content: benchContent(i), Type: memory.StoreTypes[i%5],
					Namespace: []string{"global", "default", "project:a"}[i%3], Importance: float64(i%10) / 10})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}

var queries = []string{"which database do we use", "editor theme preference", "how do we release", "logging format", "auth tokens"}

// benchRecall measures memory_recall's service call (embed the query,
// rank every memory, record the accesses durably) and reports its
// percentiles.
func benchRecall(b *testing.B, svc *memory.Service) {
	ctx := context.Background()
	measure(b, func(i int) {
		hits, err := svc.Recall(ctx, queries[i%len(queries)], 5, memory.Filter{})
		if err != nil || len(hits) != 5 {
			b.Fatalf("recall: %d hits, %v", len(hits), err)
		}
	})
}

// benchSearch measures the store's ranking alone (no embedding, no
// access update), to show where recall's time goes.
func benchSearch(b *testing.B, s core.MemoryStore, project string, emb core.Embedder) {
	ctx := context.Background()
	vecs, err := emb.Embed(ctx, queries)
	if err != nil {
		b.Fatal(err)
	}
	measure(b, func(i int) {
		hits, err := s.SearchMemories(ctx, project, emb.Model(), vecs[i%len(vecs)], core.MemoryFilter{}, 5)
		if err != nil || len(hits) != 5 {
			b.Fatalf("search: %d hits, %v", len(hits), err)
		}
	})
}

// measure runs op in the benchmark loop and reports p50 and p95.
func measure(b *testing.B, op func(i int)) {
	var times []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		op(i)
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(times)
	pct := func(p float64) float64 { return float64(times[int(p*float64(len(times)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
}

func BenchmarkRecall10k(b *testing.B) {
	emb, err := builtin.New()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("embedded", func(b *testing.B) {
		s, err := memstore.Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close(context.Background())
		svc := memory.New("bench", s, emb)
		start := time.Now()
		fill(b, svc, benchMemories)
		b.Logf("stored %d memories in %s", benchMemories, time.Since(start).Round(time.Millisecond))
		b.Run("recall", func(b *testing.B) { benchRecall(b, svc) })
		b.Run("search only", func(b *testing.B) { benchSearch(b, s, "bench", emb) })
	})
	b.Run("neo4j", func(b *testing.B) {
		uri := os.Getenv("NEO4J_URI")
		if uri == "" {
			b.Skip("NEO4J_URI is not set")
		}
		ctx := context.Background()
		s, err := neo4jstore.Open(ctx, neo4jstore.Config{URI: uri, User: os.Getenv("NEO4J_USER"), Password: os.Getenv("NEO4J_PASSWORD")})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close(ctx)
		var suffix [4]byte
		_, _ = rand.Read(suffix[:])
		project := "bench-" + hex.EncodeToString(suffix[:])
		svc := memory.New(project, s, emb)
		start := time.Now()
		fill(b, svc, benchMemories)
		b.Logf("stored %d memories in %s", benchMemories, time.Since(start).Round(time.Millisecond))
		b.Run("recall", func(b *testing.B) { benchRecall(b, svc) })
		b.Run("search only", func(b *testing.B) { benchSearch(b, s, project, emb) })
		deleteAll(b, s, project)
	})
}

// deleteAll removes the benchmark's project from the shared database.
func deleteAll(b *testing.B, s core.MemoryStore, project string) {
	ctx := context.Background()
	for {
		ms, _, err := s.ListMemories(ctx, project, core.MemoryFilter{}, core.MemoryPage{Limit: 1000})
		if err != nil || len(ms) == 0 {
			return
		}
		ids := make([]string, len(ms))
		for i, m := range ms {
			ids[i] = m.ID
		}
		if _, err := s.DeleteMemories(ctx, project, ids); err != nil {
			b.Log(err)
			return
		}
	}
}
