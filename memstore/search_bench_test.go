package memstore_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/core/storetest"
	"github.com/vaultgraph/vaultgraph/internal/procstat"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// benchDim is the built-in model's dimension.
const benchDim = 256

// BenchmarkSearch measures the store's side of a search at 10k and 100k
// notes (storetest.SearchCorpus, 256 dimensions): the exact vector scan,
// BM25 keyword search, and both as the hybrid searcher runs them (30
// candidates each). Latencies are p50-ms / p99-ms over the iterations,
// with the process's CPU time per search (all threads: the vector scan
// uses every core from 16k rows); -short runs 10k only.
//
//	go test -run '^$' -bench Search -benchtime 200x ./memstore/
func BenchmarkSearch(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		ctx := b.Context()
		corpus := storetest.NewSearchCorpus(1, n, benchDim)
		s := memstore.New()
		start := time.Now()
		for chunk := range slices.Chunk(corpus.Notes, 1000) {
			if err := s.UpsertNotes(ctx, "p", chunk); err != nil {
				b.Fatal(err)
			}
		}
		loaded := time.Since(start)
		start = time.Now()
		for i := 0; i < n; i += 1000 {
			vecs := make([]core.NoteVector, 0, 1000)
			for j := i; j < min(i+1000, n); j++ {
				vecs = append(vecs, core.NoteVector{ID: corpus.Notes[j].ID, Hash: corpus.Notes[j].Hash, Vector: corpus.Vectors[j]})
			}
			if err := s.SetNoteVectors(ctx, "p", "m", vecs); err != nil {
				b.Fatal(err)
			}
		}
		b.Logf("%d notes: upsert %.1fs, vectors %.1fs", n, loaded.Seconds(), time.Since(start).Seconds())
		q := func(i int) storetest.CorpusQuery { return corpus.Queries[i%len(corpus.Queries)] }
		b.Run(fmt.Sprintf("notes=%d/vector", n), func(b *testing.B) {
			measureSearch(b, func(i int) error {
				_, err := s.VectorSearch(ctx, "p", "m", q(i).Vector, 10)
				return err
			})
		})
		b.Run(fmt.Sprintf("notes=%d/keyword", n), func(b *testing.B) {
			measureSearch(b, func(i int) error {
				_, err := s.KeywordSearch(ctx, "p", q(i).Text, 10)
				return err
			})
		})
		b.Run(fmt.Sprintf("notes=%d/hybrid", n), func(b *testing.B) {
			measureSearch(b, func(i int) error {
				if _, err := s.VectorSearch(ctx, "p", "m", q(i).Vector, 30); err != nil {
					return err
				}
				_, err := s.KeywordSearch(ctx, "p", q(i).Text, 30)
				return err
			})
		})
		s = nil
	}
}

func measureSearch(b *testing.B, op func(i int) error) {
	b.Helper()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	cpu := procstat.CPU()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := op(i); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	cpu = procstat.CPU() - cpu
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	slices.Sort(lat)
	ms := func(q float64) float64 {
		return float64(lat[min(int(q*float64(len(lat))), len(lat)-1)].Microseconds()) / 1000
	}
	b.ReportMetric(ms(0.50), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}
