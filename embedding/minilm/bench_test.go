package minilm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	cpu := processCPU()
	for b.Loop() {
		if _, err := e.Embed(b.Context(), q); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
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
	cpu := processCPU()
	for b.Loop() {
		if _, err := e.Embed(b.Context(), batch); err != nil {
			b.Fatal(err)
		}
		n += len(batch)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "notes/s")
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/1000/float64(n), "cpu-ms/note")
}
