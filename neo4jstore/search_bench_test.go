package neo4jstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/core/storetest"
)

// searchBenchDim is the default model's dimension (all-MiniLM-L6-v2; the
// static table's 256 before issue 27).
const searchBenchDim = 384

// BenchmarkSearch measures the store's side of a search at 10k and 100k
// notes (storetest.SearchCorpus, searchBenchDim dimensions):
// vector search as VectorSearch answers it (from the process's mirror, see
// mirror.go), the vector index query it replaced (over-fetched, rescored
// exactly), the fulltext
// query with its IDF statistics, and both as the hybrid searcher runs them
// (30 candidates each). Latencies are p50-ms / p99-ms; -short runs 10k
// only. The corpus is loaded once per size (minutes at 100k) and deleted
// afterwards.
//
//	NEO4J_URI=bolt://... go test -run '^$' -bench Search -benchtime 200x ./neo4jstore/
func BenchmarkSearch(b *testing.B) {
	s := openStore(b)
	sizes := benchSizes(b)
	for _, n := range sizes {
		ctx := context.Background()
		corpus := storetest.NewSearchCorpus(1, n, searchBenchDim)
		start := time.Now()
		project := loadCorpus(b, s, corpus, benchBatch)
		b.Cleanup(func() {
			for i := 0; i < n; i += 5000 {
				_, _ = s.DeleteNotes(context.Background(), project, noteIDsOf(corpus.Notes[i:min(i+5000, n)]))
			}
		})
		waitVectorIndex(b, s, searchBenchDim)
		waitMirror(b, s, project, "m")
		b.Logf("%d notes with vectors loaded and indexed in %.1fs", n, time.Since(start).Seconds())
		q := func(i int) storetest.CorpusQuery { return corpus.Queries[i%len(corpus.Queries)] }
		// Untimed warm-up: compiled plans, warm page cache.
		for i := range 50 {
			_, _ = s.VectorSearch(ctx, project, "m", q(i).Vector, 30)
			_, _ = s.KeywordSearch(ctx, project, q(i).Text, 30)
		}
		// A trivial round trip, the floor under every figure (and a gauge
		// of how loaded the machine is).
		b.Run(fmt.Sprintf("notes=%d/baseline-getnote", n), func(b *testing.B) {
			measureSearch(b, func(i int) error {
				_, err := s.GetNote(ctx, project, corpus.Notes[i%n].ID)
				return err
			})
		})
		b.Run(fmt.Sprintf("notes=%d/vector", n), func(b *testing.B) {
			measureSearch(b, func(i int) error {
				_, err := s.VectorSearch(ctx, project, "m", q(i).Vector, 10)
				return err
			})
		})
		b.Run(fmt.Sprintf("notes=%d/vector-index", n), func(b *testing.B) {
			measureSearch(b, func(i int) error {
				_, _, err := s.vectorSearchIndexed(ctx, project, "m", toFloat64s(q(i).Vector), 10)
				return err
			})
		})
		b.Run(fmt.Sprintf("notes=%d/keyword", n), func(b *testing.B) {
			measureSearch(b, func(i int) error {
				_, err := s.KeywordSearch(ctx, project, q(i).Text, 10)
				return err
			})
		})
		b.Run(fmt.Sprintf("notes=%d/hybrid", n), func(b *testing.B) {
			measureSearch(b, func(i int) error {
				if _, err := s.VectorSearch(ctx, project, "m", q(i).Vector, 30); err != nil {
					return err
				}
				_, err := s.KeywordSearch(ctx, project, q(i).Text, 30)
				return err
			})
		})
	}
}

func measureSearch(b *testing.B, op func(i int) error) {
	b.Helper()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := op(i); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}
