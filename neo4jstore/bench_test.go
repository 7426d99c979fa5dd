package neo4jstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// Benchmarks run against the same real Neo4j as the tests (neo4jtest):
//
//	go test ./neo4jstore -run '^$' -bench . -benchtime 1x   # 10k and 100k
//	go test ./neo4jstore -run '^$' -bench . -short          # 10k only
//
// Latencies are reported as p50-ms / p99-ms over the benchmark's
// iterations; loads as seconds and notes/s.

// benchSpec is the vault shape of the benchmarks: a power-law link graph
// (half the links pick targets by in-degree), tags with a skew, a few
// self-links and unresolved links, 500 bytes of content per note.
func benchSpec(notes int) graphSpec {
	return graphSpec{notes: notes, seed: 42, avgLinks: 5, preferHubs: 0.5, selfLinks: 0.01,
		ghosts: 0.05, components: 1, tags: 50, content: 500}
}

// benchBatch is the batch size of cold loads (see BenchmarkUpsert for why).
const benchBatch = 1000

func benchSizes(b *testing.B) []int {
	if testing.Short() {
		return []int{10_000}
	}
	return []int{10_000, 100_000}
}

// load writes notes into project in batches and returns how long it took.
func load(b *testing.B, s *Neo4jStore, project string, notes []core.Note, batch int) time.Duration {
	b.Helper()
	ctx := context.Background()
	start := time.Now()
	for chunk := range slices.Chunk(notes, batch) {
		if err := s.UpsertNotes(ctx, project, chunk); err != nil {
			b.Fatalf("load %s: %v", project, err)
		}
	}
	return time.Since(start)
}

// loadStaged writes notes into project with one staged write (how the
// vault mirror writes a first sync) and returns how long it took.
func loadStaged(b *testing.B, s *Neo4jStore, project string, notes []core.Note) time.Duration {
	b.Helper()
	start := time.Now()
	if err := s.UpsertNotesStaged(context.Background(), project, notes, nil); err != nil {
		b.Fatalf("load %s: %v", project, err)
	}
	return time.Since(start)
}

// warmUp runs every write and read path once per process on a small vault
// (untimed), so that benchmarks measure a server with compiled query plans
// and a warm JIT, as a long-running vaultgraph would see it, not the first
// minute of a fresh JVM.
var warmOnce sync.Once

func warmUp(b *testing.B, s *Neo4jStore) {
	b.Helper()
	warmOnce.Do(func() {
		ctx := context.Background()
		project := fmt.Sprintf("bench-warmup-%d", rand.Uint64())
		notes := benchSpec(4000).generate()
		loadStaged(b, s, project, notes)
		for i := range notes[:500] {
			notes[i].Links = notes[i].Links[min(1, len(notes[i].Links)):]
		}
		load(b, s, project, notes[:500], 500) // rewrites: the existing-note path
		if _, err := s.DeleteNotes(ctx, project, []string{notes[1].ID, notes[2].ID}); err != nil {
			b.Fatal(err)
		}
		for i := range 200 {
			id, other := notes[i+10].ID, notes[(i*37)%len(notes)].ID
			_, _ = s.GetNote(ctx, project, id)
			_, _ = s.Neighbors(ctx, project, id, core.DirectionBoth, 20)
			_, _ = s.ShortestPath(ctx, project, id, other)
			_, _ = s.ResolveTitles(ctx, project, []string{id, other})
			_, _ = s.NotesByTags(ctx, project, []string{"tag1"}, core.TagModeAny, 20)
			_, _ = s.RandomNote(ctx, project, nil, rand.IntN)
			for _, m := range []core.HubMetric{core.MetricInDegree, core.MetricOutDegree, core.MetricPageRank} {
				_, _ = s.Hubs(ctx, project, m, 10)
			}
		}
	})
}

// A graph loaded once per size and shared by the read benchmarks.
var (
	benchGraphsMu sync.Mutex
	benchGraphs   = map[int]string{} // size -> project
)

func benchGraph(b *testing.B, s *Neo4jStore, size int) (string, []core.Note) {
	b.Helper()
	notes := benchSpec(size).generate()
	benchGraphsMu.Lock()
	defer benchGraphsMu.Unlock()
	if p, ok := benchGraphs[size]; ok {
		return p, notes
	}
	project := fmt.Sprintf("bench-%d-%d", size, rand.Uint64())
	took := loadStaged(b, s, project, notes)
	b.Logf("loaded %d notes in %.1fs", size, took.Seconds())
	benchGraphs[size] = project
	return project, notes
}

// BenchmarkUpsert measures write throughput by batch size: each operation
// loads the same 10,000-note vault into an empty project in batches of the
// given size. Links point at earlier and later notes, so every batch both
// creates ghosts and resolves earlier ones, as a first sync does.
func BenchmarkUpsert(b *testing.B) {
	s := openStore(b)
	warmUp(b, s)
	notes := benchSpec(10_000).generate()
	for _, batch := range []int{500, 1000, 5000} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			var total time.Duration
			for range b.N {
				total += load(b, s, fmt.Sprintf("bench-upsert-%d-%d", batch, rand.Uint64()), notes, batch)
			}
			b.ReportMetric(float64(len(notes)*b.N)/total.Seconds(), "notes/s")
		})
	}
}

// BenchmarkColdLoad loads a whole vault into an empty project with one
// staged write, as a first sync does.
func BenchmarkColdLoad(b *testing.B) {
	s := openStore(b)
	warmUp(b, s)
	for _, size := range benchSizes(b) {
		b.Run(fmt.Sprintf("notes=%d", size), func(b *testing.B) {
			notes := benchSpec(size).generate()
			b.ResetTimer()
			var total time.Duration
			for range b.N {
				project := fmt.Sprintf("bench-cold-%d-%d", size, rand.Uint64())
				total += loadStaged(b, s, project, notes)
				benchGraphsMu.Lock()
				if _, ok := benchGraphs[size]; !ok {
					benchGraphs[size] = project // reuse for the read benchmarks
				}
				benchGraphsMu.Unlock()
			}
			b.ReportMetric(total.Seconds()/float64(b.N), "s/load")
			b.ReportMetric(float64(size*b.N)/total.Seconds(), "notes/s")
		})
	}
}

// BenchmarkReads measures the latency of each read on a loaded graph.
func BenchmarkReads(b *testing.B) {
	s := openStore(b)
	warmUp(b, s)
	ctx := context.Background()
	for _, size := range benchSizes(b) {
		project, notes := benchGraph(b, s, size)
		ids := make([]string, len(notes))
		for i, n := range notes {
			ids[i] = n.ID
		}
		reads := []struct {
			name string
			op   func(rng *rand.Rand) error
		}{
			{"Version", func(*rand.Rand) error { // the floor: one round trip reading the change counter
				return s.read(ctx, "bench version", func(t txn) error {
					_, err := t.single(stmtGraphVersion, map[string]any{"project": project})
					return err
				})
			}},
			{"NoteContextDepth1", func(rng *rand.Rand) error {
				_, err := s.NoteContext(ctx, project, ids[rng.IntN(len(ids))], core.ContextQuery{Direction: core.DirectionBoth, Limit: 20, Balanced: true})
				return err
			}},
			{"GetNote", func(rng *rand.Rand) error {
				_, err := s.GetNote(ctx, project, ids[rng.IntN(len(ids))])
				return err
			}},
			{"Neighbors", func(rng *rand.Rand) error {
				_, err := s.Neighbors(ctx, project, ids[rng.IntN(len(ids))], core.DirectionBoth, core.ContextNeighborCount)
				return err
			}},
			{"ShortestPath", func(rng *rand.Rand) error {
				_, err := s.ShortestPath(ctx, project, ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))])
				return err
			}},
			{"HubsInDegree", func(*rand.Rand) error {
				_, err := s.Hubs(ctx, project, core.MetricInDegree, 10)
				return err
			}},
			{"HubsOutDegree", func(*rand.Rand) error {
				_, err := s.Hubs(ctx, project, core.MetricOutDegree, 10)
				return err
			}},
			{"HubsPageRank", func(*rand.Rand) error {
				_, err := s.Hubs(ctx, project, core.MetricPageRank, 10)
				return err
			}},
			{"ResolveTitles50", func(rng *rand.Rand) error {
				batch := make([]string, 50)
				for i := range batch {
					batch[i] = ids[rng.IntN(len(ids))]
				}
				_, err := s.ResolveTitles(ctx, project, batch)
				return err
			}},
			{"NotesByTagsAny", func(rng *rand.Rand) error {
				_, err := s.NotesByTags(ctx, project, []string{fmt.Sprintf("tag%d", rng.IntN(50))}, core.TagModeAny, 20)
				return err
			}},
			{"RandomNote", func(*rand.Rand) error {
				_, err := s.RandomNote(ctx, project, nil, rand.IntN)
				return err
			}},
		}
		for _, r := range reads {
			b.Run(fmt.Sprintf("notes=%d/%s", size, r.name), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				// One untimed call warms plans and caches. For PageRank the
				// stored ranking is computed first (compute-ms: read the
				// graph, rank it, save it, as the background does after
				// writes); the calls only read it.
				if r.name == "HubsPageRank" {
					took, err := s.computeRanks(ctx, project)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(took.Microseconds())/1000, "compute-ms")
				}
				start := time.Now()
				if err := r.op(rng); err != nil {
					b.Fatal(err)
				}
				cold := time.Since(start)
				lat := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for range b.N {
					t0 := time.Now()
					if err := r.op(rng); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t0))
				}
				b.StopTimer()
				if r.name == "HubsPageRank" {
					b.ReportMetric(float64(cold.Microseconds())/1000, "cold-ms")
				}
				reportPercentiles(b, lat)
			})
		}
	}
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	ms := func(q float64) float64 {
		return float64(lat[min(int(q*float64(len(lat))), len(lat)-1)].Microseconds()) / 1000
	}
	b.ReportMetric(ms(0.50), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}
