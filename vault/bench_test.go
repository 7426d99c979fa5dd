package vault

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/benchgen"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
	"github.com/vaultgraph/vaultgraph/internal/procstat"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/neo4jstore"
)

// Benchmarks of the vault package. Run them with
//
//	go test ./vault -run '^$' -bench . -benchtime=200x
//
// (200x makes BenchmarkLiveSaveLatency measure 200 edits; the others are
// not sensitive to it).

// corpusFolders are the folders of the generated vaults.
var corpusFolders = []string{"", "notes", "notes/ml", "notes/ml/deep", "projects", "projects/alpha", "projects/beta", "people", "daily", "archive/2023"}

// corpusPath is the path of generated note i.
func corpusPath(i int) string {
	folder := corpusFolders[i%len(corpusFolders)]
	name := fmt.Sprintf("Note %05d.md", i)
	if folder == "" {
		return name
	}
	return folder + "/" + name
}

// corpusNote generates a realistic note: frontmatter with title, tags,
// date and aliases; headings; paragraphs with wikilinks (some with alias
// or heading, some broken), inline tags, a markdown link, a list, a table,
// a code block and a comment. n is the vault size links point into.
func corpusNote(i, n int) string {
	r := rand.New(rand.NewPCG(uint64(i), 42))
	link := func() string {
		j := r.IntN(n)
		switch r.IntN(10) {
		case 0:
			return fmt.Sprintf("[[Note %05d|see this]]", j)
		case 1:
			return fmt.Sprintf("[[Note %05d#Details]]", j)
		case 2:
			return fmt.Sprintf("[[Missing %d]]", j) // broken
		case 3:
			return fmt.Sprintf("![[Note %05d#^b%d]]", j, r.IntN(5))
		default:
			return fmt.Sprintf("[[Note %05d]]", j)
		}
	}
	tags := []string{"ml", "project", "idea", "meeting", "person", "daily", "todo", "reference"}
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: Note number %d\ntags: [%s, %s]\ncreated: 2024-%02d-%02d\naliases:\n  - N%d\nstatus: draft\n---\n",
		i, tags[r.IntN(len(tags))], tags[r.IntN(len(tags))], 1+r.IntN(12), 1+r.IntN(28), i)
	fmt.Fprintf(&b, "# Note %d\n\n", i)
	for p := 0; p < 3+r.IntN(4); p++ {
		fmt.Fprintf(&b, "## Section %d\n\n", p)
		for s := 0; s < 4+r.IntN(4); s++ {
			b.WriteString("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. ")
			if r.IntN(2) == 0 {
				b.WriteString("See " + link() + " for more. ")
			}
			if r.IntN(4) == 0 {
				b.WriteString("#" + tags[r.IntN(len(tags))] + "/sub ")
			}
		}
		b.WriteString("\n\n")
	}
	b.WriteString("- item with " + link() + "\n- another item #todo\n- [ ] task " + link() + "\n\n")
	b.WriteString("| a | b |\n| - | - |\n| " + link() + " | `code [[not a link]]` |\n\n")
	b.WriteString("```go\nfunc main() { fmt.Println(\"[[not a link]] #nottag\") }\n```\n\n")
	fmt.Fprintf(&b, "Read [the other note](../Note%%20%05d.md) and http://example.org/#frag.\n", r.IntN(n))
	b.WriteString("%% private [[comment link]] %%\n\nSummary paragraph. ^b0\n")
	return b.String()
}

// writeCorpus writes a generated vault of n notes under root.
func writeCorpus(b *testing.B, root string, n int) {
	b.Helper()
	for _, f := range corpusFolders {
		if err := os.MkdirAll(filepath.Join(root, f), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for i := range n {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(corpusPath(i))), []byte(corpusNote(i, n)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse measures parsing throughput (MB/s) over 1000 realistic
// notes.
func BenchmarkParse(b *testing.B) {
	const n = 1000
	notes := make([][]byte, n)
	total := 0
	for i := range notes {
		notes[i] = []byte(corpusNote(i, n))
		total += len(notes[i])
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for i, raw := range notes {
			parseNote(corpusPath(i), raw)
		}
	}
}

// BenchmarkInitialSync10k measures a cold sync of a generated 10k-note
// vault into memstore: walk, parallel parse, resolution, batched writes.
func BenchmarkInitialSync10k(b *testing.B) {
	const n = 10000
	root := b.TempDir()
	writeCorpus(b, root, n)
	var stats SyncStats
	b.ReportAllocs()
	for b.Loop() {
		m, err := NewMirror(Config{Root: root, Project: testProject, Store: memstore.New(), Logger: quietLogger(), NoProgress: true})
		if err != nil {
			b.Fatal(err)
		}
		if stats, err = m.Sync(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	if stats.Written != n {
		b.Fatalf("wrote %d notes, want %d", stats.Written, n)
	}
	b.ReportMetric(float64(n)/(b.Elapsed().Seconds()/float64(b.N)), "notes/s")
}

// BenchmarkWarmSync10k measures a restart over an unchanged 10k-note vault
// whose store is already up to date: read, hash, parse, compare; no write.
func BenchmarkWarmSync10k(b *testing.B) {
	const n = 10000
	root := b.TempDir()
	writeCorpus(b, root, n)
	store := memstore.New()
	cfg := Config{Root: root, Project: testProject, Store: store, Logger: quietLogger(), NoProgress: true}
	first, err := NewMirror(cfg)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := first.Sync(context.Background()); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		m, _ := NewMirror(cfg)
		stats, err := m.Sync(context.Background())
		if err != nil || stats.Written != 0 {
			b.Fatalf("warm sync wrote %d notes (err %v)", stats.Written, err)
		}
	}
	b.ReportMetric(float64(n)/(b.Elapsed().Seconds()/float64(b.N)), "notes/s")
}

// notifyingStore tells a waiting benchmark when a note is written.
type notifyingStore struct {
	core.GraphStore
	mu      sync.Mutex
	waitFor string
	written chan time.Time
}

func (s *notifyingStore) UpsertNotes(ctx context.Context, project string, notes []core.Note) error {
	err := s.GraphStore.UpsertNotes(ctx, project, notes)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range notes {
		if n.ID == s.waitFor && err == nil {
			s.waitFor = ""
			s.written <- time.Now()
		}
	}
	return err
}

func (s *notifyingStore) expect(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waitFor = id
}

// liveCorpus writes a generated vault of n notes, mirrors it into a
// memstore that tells when a note is written, and runs live mode on it
// until the benchmark ends.
func liveCorpus(b *testing.B, n int, debounce time.Duration) (root string, store *notifyingStore) {
	b.Helper()
	root = b.TempDir()
	writeCorpus(b, root, n)
	store = &notifyingStore{GraphStore: memstore.New(), written: make(chan time.Time, 1)}
	m, err := NewMirror(Config{Root: root, Project: testProject, Store: store, Logger: quietLogger(), NoProgress: true, Debounce: debounce})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = m.Watch(ctx) }()
	b.Cleanup(func() { cancel(); <-done })
	<-m.live
	return root, store
}

// BenchmarkLiveSaveLatency measures, in live mode over a 1000-note vault,
// the time from a file save to the store holding the new content, and
// reports its p50 and p95. With the default debounce the latency is the
// debounce plus the work; the short-debounce case shows the work itself.
func BenchmarkLiveSaveLatency(b *testing.B) {
	for _, debounce := range []time.Duration{DefaultDebounce, 5 * time.Millisecond} {
		b.Run(fmt.Sprintf("debounce=%s", debounce), func(b *testing.B) {
			const n = 1000
			root, store := liveCorpus(b, n, debounce)

			var latencies []time.Duration
			i := 0
			for b.Loop() {
				rel := corpusPath(i % n)
				content := corpusNote(i%n, n) + fmt.Sprintf("\nedit %d\n", i)
				store.expect(strings.ToLower(rel))
				start := time.Now()
				if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), []byte(content), 0o644); err != nil {
					b.Fatal(err)
				}
				select {
				case at := <-store.written:
					latencies = append(latencies, at.Sub(start))
				case <-time.After(10 * time.Second):
					b.Fatalf("edit %d of %s never reached the store", i, rel)
				}
				i++
			}
			slices.Sort(latencies)
			b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(latencies[len(latencies)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}

// BenchmarkSyncBenchgen measures a cold initial sync of a benchgen vault
// (the vault cmd/vgbench uses: power-law links, 100 B..300 KB notes, seed
// 1) through the Mirror into each store, in process, so that the sync path
// can be profiled:
//
//	go test ./vault -run '^$' -bench SyncBenchgen -benchtime 1x -cpuprofile cpu.out
//
// memstore at 10k and 100k notes (issue #3: 100k including parsing
// ≤ 15 s), Neo4j at 10k (issue #5; 100k too without -short) in batches of
// 500, 1000 and 2000 notes, and at 10k in two batches. Each op syncs into an empty store: a new
// memstore, a new Neo4j project.
func BenchmarkSyncBenchgen(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, store := range []string{"memstore", "neo4j"} {
		for _, n := range sizes {
			// Neo4j takes a first sync larger than one batch as one staged
			// write (core.StagedWriter), so the batch size no longer
			// matters there.
			batches := []int{DefaultBatchSize}
			for _, batch := range batches {
				name := fmt.Sprintf("store=%s/notes=%d/batch=%d", store, n, batch)
				b.Run(name, func(b *testing.B) { benchSyncBenchgen(b, store, n, batch, 0) })
			}
			if store == "memstore" {
				// The embedded store on disk, as vaultgraph opens it; with
				// Config.StagedBatch, the write in staged calls of that
				// many notes, each note's text read back from its file.
				for _, staged := range []int{0, 25_000, 2_048} {
					name := fmt.Sprintf("store=memstore-disk/notes=%d/staged=%d", n, staged)
					b.Run(name, func(b *testing.B) { benchSyncBenchgen(b, "memstore-disk", n, DefaultBatchSize, staged) })
				}
			}
		}
	}
}

func benchSyncBenchgen(b *testing.B, store string, n, batch, staged int) {
	root := filepath.Join(b.TempDir(), "vault")
	if _, err := benchgen.Generate(root, benchgen.Config{Notes: n, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	newStore := func() core.GraphStore { return memstore.New() }
	project := func() string { return testProject }
	if store == "memstore-disk" {
		newStore = func() core.GraphStore {
			s, err := memstore.Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			return s
		}
	}
	if store == "neo4j" {
		s := openBenchNeo4j(b)
		newStore = func() core.GraphStore { return s }
		project = func() string { return fmt.Sprintf("bench-sync-%d-%d", n, rand.Uint64()) }
	}
	// The largest heap in use during the syncs, sampled every 20 ms.
	stopSampling := procstat.SampleHeapPeak(20 * time.Millisecond)
	defer func() { b.ReportMetric(float64(stopSampling())/(1<<20), "peak-heap-MB") }()
	b.ResetTimer()
	for b.Loop() {
		st := newStore()
		m, err := NewMirror(Config{Root: root, Project: project(), Store: st, Logger: quietLogger(), NoProgress: true, BatchSize: batch, StagedBatch: staged})
		if err != nil {
			b.Fatal(err)
		}
		stats, err := m.Sync(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if stats.Written != n {
			b.Fatalf("wrote %d notes, want %d", stats.Written, n)
		}
		if s, ok := st.(*memstore.Store); ok && store == "memstore-disk" {
			if err := s.Close(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
	}
	perSync := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(perSync, "s/sync")
	b.ReportMetric(float64(n)/perSync, "notes/s")
}

// openBenchNeo4j opens a neo4jstore on the test Neo4j (see neo4jtest).
func openBenchNeo4j(b *testing.B) *neo4jstore.Neo4jStore {
	b.Helper()
	srv := neo4jtest.Get(b)
	s, err := neo4jstore.Open(context.Background(), neo4jstore.Config{URI: srv.URI, User: srv.User, Password: srv.Password, Database: srv.Database})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

// BenchmarkRenameWithManyReferrers renames a note that 2,000 other notes
// link to (obsidian-hub has one with 2,205): every referrer is rewritten,
// flushed, and the index and store updated (issue 22: ≤ 2 s on 2 cores).
func BenchmarkRenameWithManyReferrers(b *testing.B) {
	const referrers = 2000
	files := map[string]string{"Hub.md": "the hub"}
	for i := range referrers {
		files[fmt.Sprintf("notes/%02d/ref-%04d.md", i%40, i)] = fmt.Sprintf("# Ref %d\n\nSee [[Hub]] and [[Hub#Part|the hub]].\n%s\n", i, strings.Repeat("Some text of a note. ", 20))
	}
	root := writeVault(b, files)
	m := newTestMirror(b, root, memstore.New())
	if _, err := m.Sync(b.Context()); err != nil {
		b.Fatal(err)
	}
	w := m.Writer()
	from := "Hub.md"
	b.ResetTimer()
	for i := range b.N {
		to := fmt.Sprintf("Hub %d.md", i)
		report, err := w.Rename(b.Context(), from, to)
		if err != nil {
			b.Fatal(err)
		}
		if report.FilesChanged < referrers {
			b.Fatalf("rewrote %d files", report.FilesChanged)
		}
		from = to
	}
}

// BenchmarkRenameWithManyReferrersMixedForms is the rename of a note that
// 2,000 notes link to in every form Obsidian resolves (issue 45: ≤ 2 s on
// the embedded store): wikilinks by name, with heading and alias, relative
// wikilinks, markdown links by name, by vault path, relative, in <angle
// brackets>, from the root ("/"), without ".md", embeds. Each rename also
// moves the note to another folder, so every relative link changes too.
func BenchmarkRenameWithManyReferrersMixedForms(b *testing.B) {
	const referrers = 2000
	const forms = 9
	files := map[string]string{"hub/The Hub.md": "the hub"}
	for i := range referrers {
		files[fmt.Sprintf("notes/%02d/ref-%04d.md", i%40, i)] = fmt.Sprintf("# Ref %d\n\n"+
			"See [[The Hub]], [[The Hub#Part|the hub]], [[../../hub/The Hub]], ![[The Hub#^blk]].\n"+
			"Markdown: [h](The%%20Hub.md), [p](hub/The%%20Hub.md#Part \"title\"), [a](<../../hub/The Hub.md>), "+
			"![e](/hub/The%%20Hub.md), [k](The%%20Hub).\n%s\n", i, strings.Repeat("Some text of a note. ", 20))
	}
	root := writeVault(b, files)
	m := newTestMirror(b, root, memstore.New())
	if _, err := m.Sync(b.Context()); err != nil {
		b.Fatal(err)
	}
	w := m.Writer()
	from := "hub/The Hub.md"
	b.ResetTimer()
	for i := range b.N {
		to := fmt.Sprintf("hub%d/The Hub %d.md", i%2, i)
		report, err := w.Rename(b.Context(), from, to)
		if err != nil {
			b.Fatal(err)
		}
		if report.FilesChanged < referrers || report.LinksChanged != forms*referrers {
			b.Fatalf("rewrote %d links in %d files", report.LinksChanged, report.FilesChanged)
		}
		from = to
	}
}

// BenchmarkLiveFolderRename measures, in live mode, the time from renaming
// a folder holding a tenth of the vault to the store holding its notes
// under the new name. Such a burst drops every watch and rescans the whole
// vault (see Watch), so this is what a folder rename costs at each size.
func BenchmarkLiveFolderRename(b *testing.B) {
	sizes := []int{1000, 10_000}
	if !testing.Short() && os.Getenv("VAULTGRAPH_BENCH_100K") != "" {
		sizes = append(sizes, 100_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("notes=%d", n), func(b *testing.B) {
			root, store := liveCorpus(b, n, 5*time.Millisecond)

			from, to := "people", "people2"
			i := slices.Index(corpusFolders, from)
			for b.Loop() {
				store.expect(strings.ToLower(to + "/" + filepath.Base(corpusPath(i))))
				if err := os.Rename(filepath.Join(root, from), filepath.Join(root, to)); err != nil {
					b.Fatal(err)
				}
				select {
				case <-store.written:
				case <-time.After(time.Minute):
					b.Fatalf("the rename of %s never reached the store", from)
				}
				from, to = to, from
			}
		})
	}
}

// BenchmarkRestartBenchgen measures a warm restart in process: a benchgen
// vault (10k notes; VAULTGRAPH_BENCH_NOTES for another size) synced once
// into an embedded store on disk, then, per op, the store opened again and
// a new Mirror's first Sync (the walk beside the store's load and the
// index's restore; nothing read, nothing written), and the store closed.
// It reports the wall and CPU seconds of a restart and the heap it leaves:
//
//	VAULTGRAPH_BENCH_NOTES=100000 go test ./vault -run '^$' -bench RestartBenchgen -benchtime 3x
func BenchmarkRestartBenchgen(b *testing.B) {
	n := 10_000
	if v := os.Getenv("VAULTGRAPH_BENCH_NOTES"); v != "" {
		if _, err := fmt.Sscan(v, &n); err != nil || n <= 0 {
			b.Fatalf("VAULTGRAPH_BENCH_NOTES=%q: want a positive number of notes", v)
		}
	}
	root, state := filepath.Join(b.TempDir(), "vault"), b.TempDir()
	if _, err := benchgen.Generate(root, benchgen.Config{Notes: n, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	restart := func() (*memstore.Store, *Mirror, SyncStats) {
		s, err := memstore.Open(state)
		if err != nil {
			b.Fatal(err)
		}
		m, err := NewMirror(Config{Root: root, Project: testProject, Store: s, Logger: quietLogger(), NoProgress: true})
		if err != nil {
			b.Fatal(err)
		}
		stats, err := m.Sync(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		return s, m, stats
	}
	s, _, stats := restart() // the cold sync
	if stats.Written != n {
		b.Fatalf("cold sync wrote %d notes, want %d", stats.Written, n)
	}
	_ = s.Close(context.Background())
	var heap uint64
	var cpu time.Duration
	b.ResetTimer()
	for b.Loop() {
		before := procstat.CPU()
		s, m, stats := restart()
		cpu += procstat.CPU() - before
		if stats.Read != 0 || stats.Written != 0 {
			b.Fatalf("warm restart read %d and wrote %d notes", stats.Read, stats.Written)
		}
		b.StopTimer()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = ms.HeapAlloc // the store's and the mirror's
		runtime.KeepAlive(m)
		_ = s.Close(context.Background())
		b.StartTimer()
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/restart")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/restart")
	b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
}
