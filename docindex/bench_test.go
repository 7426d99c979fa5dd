package docindex

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/builtin"
	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/neo4jstore"
)

func TestMain(m *testing.M) { os.Exit(neo4jtest.Main(m)) }

var benchWords = strings.Fields(`database backup index query cluster latency token embedding vector search
garden tomato compost recipe bread flour oven travel train ticket museum budget invoice tax pension
kernel thread mutex channel goroutine allocation cache eviction replica shard migration schema`)

// benchCorpus writes files markdown documents of sections sections, each
// about 1,400 characters (so most are split in two), and returns the
// folder.
func benchCorpus(b *testing.B, files, sections int) string {
	b.Helper()
	dir := b.TempDir()
	r := mrand.New(mrand.NewPCG(1, 2))
	for f := range files {
		var sb strings.Builder
		fmt.Fprintf(&sb, "# Document %d\n\n", f)
		for s := range sections {
			fmt.Fprintf(&sb, "## Section %d\n\n", s)
			for p := range 4 {
				for w := range 55 {
					sb.WriteString(benchWords[r.IntN(len(benchWords))])
					if w%11 == 10 {
						sb.WriteString(". ")
					} else {
						sb.WriteString(" ")
					}
				}
				if p < 3 {
					sb.WriteString("\n\n")
				}
			}
			sb.WriteString("\n\n")
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("doc-%03d.md", f)), []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func benchProject() string {
	var s [6]byte
	_, _ = rand.Read(s[:])
	return "docindex-bench-" + hex.EncodeToString(s[:])
}

// benchIndex indexes a 100-file corpus into a fresh project per iteration
// and reports chunks per second (embedding with the built-in model
// included).
func benchIndex(b *testing.B, store core.ChunkStore) {
	dir := benchCorpus(b, 100, 5)
	emb, err := builtin.New()
	if err != nil {
		b.Fatal(err)
	}
	chunks := 0
	var elapsed time.Duration
	for b.Loop() {
		svc, err := New(Config{Project: benchProject(), Store: store, Embedder: emb, Roots: []string{dir}})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		res, err := svc.IndexDirectory(context.Background(), dir, true, "")
		elapsed += time.Since(start)
		if err != nil || len(res.FailedFiles) > 0 {
			b.Fatalf("index: %v %+v", err, res)
		}
		chunks += res.TotalChunks
	}
	b.ReportMetric(float64(chunks)/elapsed.Seconds(), "chunks/s")
	b.ReportMetric(float64(chunks)/float64(b.N), "chunks/op")
}

func BenchmarkIndexDirectoryEmbedded(b *testing.B) { benchIndex(b, memstore.New()) }

func BenchmarkIndexDirectoryNeo4j(b *testing.B) { benchIndex(b, openBenchNeo4j(b)) }

func openBenchNeo4j(b *testing.B) *neo4jstore.Neo4jStore {
	srv := neo4jtest.Get(b)
	s, err := neo4jstore.Open(context.Background(), neo4jstore.Config{URI: srv.URI, User: srv.User, Password: srv.Password, Database: srv.Database})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

// benchSearch indexes the corpus once (1,000 chunks per 100 files) and
// measures one search (query embedding included).
func benchSearch(b *testing.B, store core.ChunkStore, files int) {
	dir := benchCorpus(b, files, 5)
	emb, err := builtin.New()
	if err != nil {
		b.Fatal(err)
	}
	svc, err := New(Config{Project: benchProject(), Store: store, Embedder: emb, Roots: []string{dir}})
	if err != nil {
		b.Fatal(err)
	}
	res, err := svc.IndexDirectory(context.Background(), dir, true, "")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(res.TotalChunks), "chunks")
	queries := []string{"database backup schedule", "tomato garden compost", "goroutine mutex contention", "train ticket budget"}
	i := 0
	for b.Loop() {
		if _, err := svc.Search(context.Background(), queries[i%len(queries)], Filter{}, 5); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkSearchEmbedded10k(b *testing.B) { benchSearch(b, memstore.New(), 1000) }

func BenchmarkSearchNeo4j10k(b *testing.B) { benchSearch(b, openBenchNeo4j(b), 1000) }
