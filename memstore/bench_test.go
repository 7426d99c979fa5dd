package memstore_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/internal/procstat"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// The synthetic vault of the benchmarks: 100k notes in 64 folders, 5..15
// links each (mean 10): 20% to a few thousand hub candidates drawn from a
// Zipf law (the top hubs get tens of thousands of in-links), 75% uniform,
// 5% unresolved; 1..3 tags from 500, also Zipf; ~400 bytes of content and a
// small frontmatter.
//
// Run with (a few minutes on 2 cores):
//
//	go test -run '^$' -bench . -benchtime 2000x ./memstore/
const (
	benchNotes     = 100_000
	benchBatch     = 1000
	benchProject   = "bench"
	benchHubShare  = 0.20
	benchGhostRate = 0.05
)

// benchID spreads numbers over folders so that ID order differs from
// creation order. 104729 is prime, so i -> i*104729 mod 100000 is a bijection.
func benchID(i int) string {
	return fmt.Sprintf("area-%02d/note-%06d.md", i%64, (i*104729)%benchNotes)
}

var benchTags = func() []string {
	tags := make([]string, 500)
	for i := range tags {
		tags[i] = fmt.Sprintf("topic/t%03d", i)
	}
	return tags
}()

var benchFiller = strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 7)

// benchNote builds note i deterministically.
func benchNote(i int) core.Note {
	rng := rand.New(rand.NewPCG(uint64(i), 42))
	hubs := rand.NewZipf(rng, 1.1, 1, 1999)
	tagZipf := rand.NewZipf(rng, 1.2, 1, uint64(len(benchTags)-1))
	id := benchID(i)
	stem := strings.TrimSuffix(id[strings.IndexByte(id, '/')+1:], ".md")
	n := core.Note{
		ID:          id,
		Title:       stem,
		Path:        id,
		Content:     fmt.Sprintf("# %s\n\n%s", stem, benchFiller),
		Hash:        fmt.Sprintf("%064x", i),
		ModTime:     time.Unix(1_700_000_000+int64(i), 0),
		Keys:        []string{strings.TrimSuffix(id, ".md"), stem},
		Frontmatter: map[string]any{"title": stem, "created": "2024-01-01", "rank": i % 10},
	}
	for range 1 + rng.IntN(3) {
		if t := benchTags[tagZipf.Uint64()]; !slices.Contains(n.Tags, t) {
			n.Tags = append(n.Tags, t)
		}
	}
	for range 5 + rng.IntN(11) {
		var target string
		switch r := rng.Float64(); {
		case r < benchGhostRate:
			key := fmt.Sprintf("missing-%d", rng.IntN(5000))
			n.Links = append(n.Links, core.Link{Raw: "[[" + key + "]]", Key: key})
			continue
		case r < benchGhostRate+benchHubShare:
			target = benchID(int(hubs.Uint64()))
		default:
			target = benchID(rng.IntN(benchNotes))
		}
		key := strings.TrimSuffix(target, ".md")
		n.Links = append(n.Links, core.Link{Raw: "[[" + key + "]]", Key: key, Target: target})
	}
	return n
}

func benchBatches() [][]core.Note {
	batches := make([][]core.Note, 0, benchNotes/benchBatch)
	for start := 0; start < benchNotes; start += benchBatch {
		batch := make([]core.Note, benchBatch)
		for j := range batch {
			batch[j] = benchNote(start + j)
		}
		batches = append(batches, batch)
	}
	return batches
}

func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkLoad100k measures loading the vault with UpsertNotes in batches
// of 1000. One op is one batch into a store that fills up to 100k notes (a
// fresh store every 100 batches), so "load-100k-s" is the time of a whole
// load and allocations per load are 100x the per-op figures. Once, it also
// loads a store without keeping the input and reports the heap the store
// holds and the first (cold) Hubs call per metric.
func BenchmarkLoad100k(b *testing.B) {
	batches := benchBatches()
	perLoad := len(batches)
	var s *memstore.Store
	b.ReportAllocs()
	b.ResetTimer()
	cpu := procstat.CPU()
	for i := 0; i < b.N; i++ {
		if i%perLoad == 0 {
			s = memstore.New()
		}
		if err := s.UpsertNotes(b.Context(), benchProject, batches[i%perLoad]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu = procstat.CPU() - cpu
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)*float64(perLoad)/1e9, "load-100k-s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)*float64(perLoad)/1e9, "load-100k-cpu-s")
	s, batches = nil, nil
	runtime.KeepAlive(s)
	runtime.KeepAlive(batches)

	// Heap: the input is generated batch by batch and dropped, since the
	// store shares its strings; what remains is what the store keeps.
	base := heapAlloc()
	s = memstore.New()
	for start := 0; start < benchNotes; start += benchBatch {
		batch := make([]core.Note, benchBatch)
		for j := range batch {
			batch[j] = benchNote(start + j)
		}
		if err := s.UpsertNotes(b.Context(), benchProject, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(heapAlloc()-base)/(1<<20), "heap-MB")
	for _, m := range []core.HubMetric{core.MetricInDegree, core.MetricPageRank} {
		start := time.Now()
		if _, err := s.Hubs(b.Context(), benchProject, m, 10); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "hubs-"+string(m)+"-cold-ms")
	}
	runtime.KeepAlive(s)
}

var (
	fixtureOnce sync.Once
	fixture     *memstore.Store
)

// loaded returns the shared 100k-note store, built once per process.
func loaded(b *testing.B) *memstore.Store {
	fixtureOnce.Do(func() {
		s := memstore.New()
		for start := 0; start < benchNotes; start += benchBatch {
			batch := make([]core.Note, benchBatch)
			for j := range batch {
				batch[j] = benchNote(start + j)
			}
			if err := s.UpsertNotes(b.Context(), benchProject, batch); err != nil {
				panic(err)
			}
		}
		fixture = s
	})
	return fixture
}

// measure runs op b.N times with the i-th input and reports p50 and p99
// latency and the mean CPU time next to the mean wall time.
func measure(b *testing.B, op func(i int) error) {
	b.Helper()
	b.ReportAllocs()
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	cpu := procstat.CPU()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := op(i); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	b.ReportMetric(float64((procstat.CPU()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(durations[len(durations)*99/100].Nanoseconds()), "p99-ns")
}

func randomIDs(seed uint64, n int) []string {
	rng := rand.New(rand.NewPCG(seed, 7))
	ids := make([]string, n)
	for i := range ids {
		ids[i] = benchID(rng.IntN(benchNotes))
	}
	return ids
}

func BenchmarkQuery100k(b *testing.B) {
	s := loaded(b)
	ctx := b.Context()
	ids := randomIDs(1, 1<<16)
	pick := func(i int) string { return ids[i%len(ids)] }
	topHub := func() string {
		h, err := s.Hubs(ctx, benchProject, core.MetricInDegree, 1)
		if err != nil {
			b.Fatal(err)
		}
		return h[0].ID
	}()

	b.Run("GetNote", func(b *testing.B) {
		measure(b, func(i int) error { _, err := s.GetNote(ctx, benchProject, pick(i)); return err })
	})
	b.Run("Neighbors/both-limit-20", func(b *testing.B) {
		measure(b, func(i int) error {
			_, err := s.Neighbors(ctx, benchProject, pick(i), core.DirectionBoth, 20)
			return err
		})
	})
	b.Run("Neighbors/top-hub-both-limit-20", func(b *testing.B) {
		measure(b, func(int) error {
			_, err := s.Neighbors(ctx, benchProject, topHub, core.DirectionBoth, 20)
			return err
		})
	})
	b.Run("Degree", func(b *testing.B) {
		measure(b, func(i int) error { _, err := s.Degree(ctx, benchProject, pick(i)); return err })
	})
	b.Run("ShortestPath/random-pairs", func(b *testing.B) {
		found := 0
		measure(b, func(i int) error {
			p, err := s.ShortestPath(ctx, benchProject, pick(2*i), pick(2*i+1))
			if p != nil {
				found++
			}
			return err
		})
		b.ReportMetric(float64(found)/float64(b.N), "found/op")
	})
	for _, m := range []core.HubMetric{core.MetricInDegree, core.MetricOutDegree, core.MetricPageRank} {
		b.Run("Hubs/"+string(m)+"-limit-10", func(b *testing.B) {
			if _, err := s.Hubs(ctx, benchProject, m, 10); err != nil { // warm the cache
				b.Fatal(err)
			}
			measure(b, func(int) error { _, err := s.Hubs(ctx, benchProject, m, 10); return err })
		})
	}
	rng := rand.New(rand.NewPCG(9, 9))
	tagPairs := make([][]string, 1024)
	for i := range tagPairs {
		// One popular and one mid-popular tag, so both modes have work.
		tagPairs[i] = []string{benchTags[rng.IntN(5)], benchTags[5+rng.IntN(50)]}
	}
	for _, mode := range []core.TagMode{core.TagModeAny, core.TagModeAll} {
		b.Run("NotesByTags/"+string(mode)+"-limit-50", func(b *testing.B) {
			measure(b, func(i int) error {
				_, err := s.NotesByTags(ctx, benchProject, tagPairs[i%len(tagPairs)], mode, 50)
				return err
			})
		})
	}
	b.Run("RandomNote/tagged", func(b *testing.B) {
		measure(b, func(i int) error {
			_, err := s.RandomNote(ctx, benchProject, tagPairs[i%len(tagPairs)][:1], func(n int) int { return i % n })
			return err
		})
	})
}

// BenchmarkUpsertOneNote100k measures a single-note edit (the watcher's
// common case) on the loaded store, links to hubs included, and what it
// costs the next hub query to re-rank.
func BenchmarkUpsertOneNote100k(b *testing.B) {
	s := loaded(b)
	ctx := b.Context()
	b.Run("UpsertNotes/one-note", func(b *testing.B) {
		measure(b, func(i int) error {
			n := benchNote(i % benchNotes)
			n.Content += " edited"
			return s.UpsertNotes(ctx, benchProject, []core.Note{n})
		})
	})
	b.Run("UpsertNotes/one-note-then-Hubs-in_degree", func(b *testing.B) {
		measure(b, func(i int) error {
			n := benchNote(i % benchNotes)
			n.Links = n.Links[:len(n.Links)-1] // change an edge: invalidates rankings
			if err := s.UpsertNotes(ctx, benchProject, []core.Note{n}); err != nil {
				return err
			}
			_, err := s.Hubs(ctx, benchProject, core.MetricInDegree, 10)
			return err
		})
	})
}

// vaultWords is the vocabulary of vaultNote, as cmd/vggen's vaults use
// words: a few hundred, each title a pair of them and a number.
var vaultWords = strings.Fields(`access account action agenda airport amber ancient annual archive attention
audit autumn axiom backlog basil battle benchmark biology branch bread bright budget buffer butter cache canyon
cell central certificate chapter character chord chronicle cipher client cluster coffee colleague comet commit
community compiler complex concert constraint context course crimson cycling daily dataset debugger decoder dense
descent desert design dialogue diary diet draft dynasty eastern ecology emerald empire encoder entropy enzyme
essay evening exam exercise family feature festival finance forest friday friend galaxy garden genome gentle
goal golden gradient graph guitar habit habitat harmony hash health heuristic hidden history hotel hotfix idea
indigo inference insight invoice island ivory journal kitchen language latency lattice ledger legend lemma lesson
letter lower matrix meadow meaning meeting melody memory mentor merge milestone model modern module monday
morning mortgage mountain museum music narrative nebula neighbor network neuron north ocean onion option orbit
outer outline paper partition partner patch pattern pension people pepper photon physics piano plot poem policy
principle profiler project prompt proof protein protocol quantum query question queue quiet rapid reading rebase
receipt recipe release review rhythm risk river roadmap robust runtime savings scale scarlet scene schema
scheduler security semantic seminar session shard signature silver simple sleep socket software south sparse
species spring sprint station storage stream student summary swimming synapse syntax tax teaching team tempo
tensor theater theorem theory thread throughput ticket token tomato training travel treaty valley vector verse
version violin weekly western window winter writing yoga`)

// vaultNote builds note i of a vault shaped like cmd/vggen's: a title of
// two words and a number (so about one new keyword term per note), a body
// of ~40 wikilinks and list items with aliases, a few tags, ~1.5 KB.
func vaultNote(i, notes int) core.Note {
	rng := rand.New(rand.NewPCG(uint64(i), 24))
	word := func() string { return vaultWords[rng.IntN(len(vaultWords))] }
	me, id := vaultTitle(i)
	var body strings.Builder
	fmt.Fprintf(&body, "# %s\n\n", me)
	n := core.Note{ID: id, Title: me, Path: id, Hash: fmt.Sprintf("%064x", i), Keys: []string{me}, ModTime: time.Unix(1_700_000_000, 0)}
	for range 2 + rng.IntN(5) {
		for range 8 + rng.IntN(12) {
			body.WriteString(word() + " ")
		}
		body.WriteString("\n\n")
	}
	body.WriteString("## Related\n\n")
	for range 5 + rng.IntN(40) {
		key, target := vaultTitle(rng.IntN(notes))
		if rng.IntN(20) == 0 {
			key, target = "Unwritten "+word()+" "+fmt.Sprint(rng.IntN(1_000_000)), ""
		}
		fmt.Fprintf(&body, "- [[%s|%s %s]]\n", key, word(), word())
		n.Links = append(n.Links, core.Link{Raw: "[[" + key + "]]", Key: key, Target: target})
	}
	for range 1 + rng.IntN(3) {
		t := "#" + word() + "/" + word()
		body.WriteString(t + "\n")
		n.Tags = append(n.Tags, t[1:])
	}
	n.Content = body.String()
	return n
}

// vaultTitle is the title and ID of note i of vaultNote's vault.
func vaultTitle(i int) (title, id string) {
	rng := rand.New(rand.NewPCG(uint64(i), 25))
	w := vaultWords[rng.IntN(len(vaultWords))]
	title = strings.ToUpper(w[:1]) + w[1:] + " " + vaultWords[rng.IntN(len(vaultWords))] + " " + fmt.Sprint(i)
	folder := vaultWords[i%64]
	return title, strings.ToUpper(folder[:1]) + folder[1:] + "/" + title + ".md"
}

// BenchmarkStagedWrite100k measures a first sync's write into a store on
// disk: 100k vggen-like notes through UpsertNotesStaged, either in one call
// (the vault's way before it streamed) or in calls of 2,048 notes one after
// another, in ID order. One op is a whole write into a new state folder; cpu-s/op is
// the process's CPU time (all goroutines, the collector's included: the
// figure to compare on a busy machine), peak-heap-MB the largest heap in
// use seen every 20 ms during the op.
//
//	go test -run '^$' -bench StagedWrite -benchtime 1x -benchmem ./memstore/
func BenchmarkStagedWrite100k(b *testing.B) {
	notes := make([]core.Note, benchNotes)
	for i := range notes {
		notes[i] = vaultNote(i, benchNotes)
	}
	// In ID order, as the vault writes them.
	slices.SortFunc(notes, func(a, b core.Note) int { return strings.Compare(a.ID, b.ID) })
	for _, batch := range []int{benchNotes, 2048} {
		b.Run(fmt.Sprintf("batch-%d", batch), func(b *testing.B) {
			stopSampling := procstat.SampleHeapPeak(20 * time.Millisecond)
			base := heapAlloc()
			b.ReportAllocs()
			b.ResetTimer()
			cpu := procstat.CPU()
			for range b.N {
				b.StopTimer()
				s, err := memstore.Open(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				for start := 0; start < len(notes); start += batch {
					if err := s.UpsertNotesStaged(b.Context(), benchProject, notes[start:min(start+batch, len(notes))], nil); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				if err := s.Close(b.Context()); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.StopTimer()
			b.ReportMetric((procstat.CPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
			peak := stopSampling()
			b.ReportMetric(float64(peak-min(peak, base))/(1<<20), "peak-heap-MB")
		})
	}
}

// BenchmarkOpen100k measures a restart's load of a 100k-note project
// from disk (graph.build, load.go): one op opens the state folder written
// once and lists its notes' states, as a restart does, which builds the
// whole graph from the note records (and starts no background load). cpu-s/op is the process's CPU time, the figure to compare
// on a busy machine.
//
//	go test -run '^$' -bench Open100k -benchtime 5x ./memstore/
func BenchmarkOpen100k(b *testing.B) {
	dir := b.TempDir()
	notes := make([]core.Note, benchNotes)
	for i := range notes {
		notes[i] = vaultNote(i, benchNotes)
	}
	slices.SortFunc(notes, func(a, b core.Note) int { return strings.Compare(a.ID, b.ID) })
	s, err := memstore.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.UpsertNotesStaged(b.Context(), benchProject, notes, nil); err != nil {
		b.Fatal(err)
	}
	if err := s.Close(b.Context()); err != nil {
		b.Fatal(err)
	}
	notes = nil
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := procstat.CPU()
	for range b.N {
		s, err := memstore.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		if err := s.NoteStates(b.Context(), benchProject, func(core.NoteState) error { n++; return nil }); err != nil || n != benchNotes {
			b.Fatal(n, err)
		}
		b.StopTimer()
		if err := s.Close(b.Context()); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric((procstat.CPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
}
