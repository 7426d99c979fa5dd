package minilm

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/internal/procstat"
)

// benchNotes builds notes of 1-2 KB (a typical vault note; over 256
// tokens, so each is cut at MaxTokens) from the eval vault.
func benchNotes(b *testing.B) []string {
	b.Helper()
	paths, err := filepath.Glob("../testdata/evalvault/*/*.md")
	if err != nil || len(paths) == 0 {
		b.Fatalf("eval vault: %v (%d files)", err, len(paths))
	}
	var notes []string
	var cur strings.Builder
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		cur.Write(raw)
		if cur.Len() >= 1400 {
			notes = append(notes, cur.String())
			cur.Reset()
		}
	}
	return notes
}

// BenchmarkQuery embeds one short query, as search does:
//
//	go test -run '^$' -bench Query ./embedding/minilm
func BenchmarkQuery(b *testing.B) {
	e, err := New()
	if err != nil {
		b.Fatal(err)
	}
	q := []string{"how do I stop a goroutine when the request is cancelled"}
	b.ReportAllocs()
	cpu := procstat.CPU()
	var lat []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := e.Embed(b.Context(), q); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.ReportMetric(float64((procstat.CPU()-cpu).Microseconds())/1000/float64(len(lat)), "cpu-ms/op")
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkNotes embeds batches of notes of 1-2 KB, as the indexer does;
// notes/s is the throughput on all CPUs (-cpu sets how many).
func BenchmarkNotes(b *testing.B) {
	e, err := New()
	if err != nil {
		b.Fatal(err)
	}
	notes := benchNotes(b)
	batch := notes[:16]
	b.ReportAllocs()
	n := 0
	cpu := procstat.CPU()
	for b.Loop() {
		if _, err := e.Embed(b.Context(), batch); err != nil {
			b.Fatal(err)
		}
		n += len(batch)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "notes/s")
	b.ReportMetric(float64((procstat.CPU()-cpu).Microseconds())/1000/float64(n), "cpu-ms/note")
}
