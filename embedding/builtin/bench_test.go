package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchNotes builds notes of 1-2 KB, a typical vault note, by joining
// consecutive notes of the eval vault.
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

// BenchmarkEmbedNotes measures the built-in embedder's throughput on
// realistic notes; run it on one core with
//
//	go test -run '^$' -bench EmbedNotes -cpu 1 ./embedding/builtin
func BenchmarkEmbedNotes(b *testing.B) {
	e := newEmbedder(b)
	notes := benchNotes(b)
	var size int
	for _, n := range notes {
		size += len(n)
	}
	b.SetBytes(int64(size / len(notes)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := e.Embed(b.Context(), notes[i%len(notes):i%len(notes)+1]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "notes/s")
	b.ReportMetric(float64(size/len(notes)), "bytes/note")
}

// BenchmarkLoad measures decoding the embedded model (once per process).
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := load(); err != nil {
			b.Fatal(err)
		}
	}
}
