package semantic_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/core/storetest"
	"github.com/vaultgraph/vaultgraph/embedding"
	"github.com/vaultgraph/vaultgraph/internal/procstat"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/semantic"
)

// BenchmarkSearch measures one search as the search tool runs it with the
// default embedder, on the embedded store: the transformer embeds the
// query while BM25 runs, the store scans every 384-dimensional vector,
// the halves are fused. "mixed" is a vault half embedded (every other
// note has only its static vector): both models embed the query and both
// scans run. Note vectors are synthetic (storetest.NewSearchCorpus: the
// scan's cost does not depend on their values); queries are the corpus's
// text, each made unique by a number (the query-vector cache would
// otherwise answer the repeats; "repeated" cycles through 20 queries, as
// a model refining its searches does). "static" is the same vault and
// queries with the static table as the only model, the baseline issue
// 49.4 compares the default with (default p50 ≤ 2× static's). Latencies
// are p50-ms and p99-ms; cpu-ms/op counts every thread.
// VAULTGRAPH_BENCH_NOTES sets the size (default 100000).
//
//	go test -run '^$' -bench Search -benchtime 200x ./semantic/
func BenchmarkSearch(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("VAULTGRAPH_BENCH_NOTES")); err == nil && v > 0 {
		n = v
	}
	ctx := b.Context()
	best, err := embedding.New(embedding.ProviderBuiltin, "", "", "")
	if err != nil {
		b.Fatal(err)
	}
	fast, err := embedding.NewFast(embedding.ProviderBuiltin, "")
	if err != nil {
		b.Fatal(err)
	}
	corpus := storetest.NewSearchCorpus(1, n, best.Dimension())
	s := memstore.New()
	for chunk := range slices.Chunk(corpus.Notes, 1000) {
		if err := s.UpsertNotes(ctx, "p", chunk); err != nil {
			b.Fatal(err)
		}
	}
	setVectors := func(mixed bool) {
		for i := 0; i < n; i += 1000 {
			var bv, fv []core.NoteVector
			for j := i; j < min(i+1000, n); j++ {
				v := core.NoteVector{ID: corpus.Notes[j].ID, Hash: corpus.Notes[j].Hash, Vector: corpus.Vectors[j]}
				if mixed && j%2 == 0 {
					fv = append(fv, v)
				} else {
					bv = append(bv, v)
				}
			}
			if err := s.SetNoteVectors(ctx, "p", semantic.NoteModel(best), bv); err != nil {
				b.Fatal(err)
			}
			if len(fv) > 0 {
				if err := s.SetNoteVectors(ctx, "p", semantic.NoteModel(fast), fv); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	for _, mixed := range []bool{false, true} {
		setVectors(mixed)
		pending := 0
		if mixed {
			pending = n / 2
		}
		sr, err := semantic.NewSearcher("p", s, best, nil, semantic.WithFastTier(fast, func() int { return pending }))
		if err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("notes=%d/transformer", n)
		if mixed {
			name = fmt.Sprintf("notes=%d/mixed", n)
		}
		b.Run(name, func(b *testing.B) { benchSearches(b, sr, corpus, false) })
		if !mixed {
			b.Run(fmt.Sprintf("notes=%d/repeated", n), func(b *testing.B) { benchSearches(b, sr, corpus, true) })
		}
	}
	// The static table alone, on the same notes and queries.
	static := storetest.NewSearchCorpus(1, n, fast.Dimension())
	for i := 0; i < n; i += 1000 {
		var fv []core.NoteVector
		for j := i; j < min(i+1000, n); j++ {
			fv = append(fv, core.NoteVector{ID: corpus.Notes[j].ID, Hash: corpus.Notes[j].Hash, Vector: static.Vectors[j]})
		}
		if err := s.SetNoteVectors(ctx, "p", semantic.NoteModel(fast), fv); err != nil {
			b.Fatal(err)
		}
	}
	sr, err := semantic.NewSearcher("p", s, fast, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("notes=%d/static", n), func(b *testing.B) { benchSearches(b, sr, corpus, false) })
}

// benchSearches runs b.N searches of the corpus's queries, each made unique
// by its number unless repeated (then 20 queries in turn), and reports
// their CPU time and latencies.
func benchSearches(b *testing.B, sr *semantic.Searcher, corpus *storetest.SearchCorpus, repeated bool) {
	ctx := b.Context()
	lat := make([]time.Duration, 0, b.N)
	cpu := procstat.CPU()
	for i := 0; b.Loop(); i++ {
		q := corpus.Queries[i%len(corpus.Queries)].Text + " " + strconv.Itoa(i)
		if repeated {
			q = corpus.Queries[i%min(20, len(corpus.Queries))].Text
		}
		t0 := time.Now()
		if _, err := sr.Search(ctx, q, 10); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.ReportMetric(float64((procstat.CPU()-cpu).Microseconds())/1000/float64(len(lat)), "cpu-ms/op")
	slices.Sort(lat)
	ms := func(q float64) float64 {
		return float64(lat[min(int(q*float64(len(lat))), len(lat)-1)].Microseconds()) / 1000
	}
	b.ReportMetric(ms(0.50), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}
