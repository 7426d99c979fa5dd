// Command vgbench runs vaultgraph's end-to-end benchmarks (issue #8) and
// writes the results into docs/BENCHMARKS.md:
//
//	go run ./cmd/vgbench -sizes 10000,100000 -out docs/BENCHMARKS.md   # make bench
//	go run ./cmd/vgbench -sizes 10000 -out docs/BENCHMARKS.md -quick   # make bench-quick
//
// For each size it generates a vault with benchgen (seed -seed) and, on the
// embedded store and on Neo4j, measures: a graph-only first sync
// (embedding.provider none; wall time, CPU seconds of vaultgraph and of the
// Neo4j JVM, peak RSS: issue 44 compares the stores by it), a cold
// `vaultgraph sync` (wall time, notes/s, peak RSS), a warm restart (`vaultgraph serve` until the
// MCP handshake is done, and until its first sync is), every read tool of the graph toolset through the
// real stdio path (mcp-go's stdio client driving the binary) at
// concurrency 1 and 8, file save → store latency over -edits saves, the
// peak RSS of serve and Neo4j's store size.
//
// Neo4j is the one NEO4J_URI names (NEO4J_USER, NEO4J_PASSWORD,
// NEO4J_DATABASE; its database is emptied), else a local Neo4j started
// from Maven jars by scripts/neo4j-local/neo4j-local.sh and stopped at the
// end. Before any measurement a small vault is synced into Neo4j once and
// removed again, so the cold syncs measure an empty database on a warm
// server, not a fresh JVM's JIT; likewise every read case is called a few
// hundred times, untimed, before Neo4j's reads are timed. The local Neo4j
// gets a page cache that holds the 100k store (localPageCache).
// -stores embedded skips Neo4j.
//
// The generated section of -out sits between markers; the rest of the file
// is kept. The results are also recorded there as JSON, and the next run
// flags every figure that got more than 20% worse.
package main

import (
	"bufio"
	"context"
	"errors"

	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vaultgraph/vaultgraph/benchgen"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(ctx, os.Args[1:], logger); err != nil {
		logger.Error("vgbench failed", "err", err)
		os.Exit(1)
	}
}

// bench is one run's settings and shared state.
type bench struct {
	bin        string // the vaultgraph binary
	configHome string // an empty XDG_CONFIG_HOME for every vaultgraph process
	work       string // temporary folder: vaults, state folders
	calls      int
	warm       int
	neoWarm    int // untimed calls of each read case on Neo4j (-warm-calls)
	edits      int
	seed       uint64
	logger     *slog.Logger
	neo        *neo4jServer
	starts     int      // -starts: restart rounds only (startRounds)
	fresh      bool     // -fresh: those starts are first starts
	bins       []string // -bins: binaries alternated by -syncs and -starts
}

func run(ctx context.Context, args []string, logger *slog.Logger) error {
	fs := flag.NewFlagSet("vgbench", flag.ContinueOnError)
	sizesFlag := fs.String("sizes", "10000,100000", "vault sizes in notes, comma-separated")
	out := fs.String("out", "docs/BENCHMARKS.md", "markdown file whose generated section is rewritten; empty prints to stdout")
	quick := fs.Bool("quick", false, "fewer timed calls per read case (for bench-quick)")
	storesFlag := fs.String("stores", "embedded,neo4j", "stores to measure")
	bin := fs.String("bin", "bin/vaultgraph", "vaultgraph binary; built into a temporary folder when missing")
	seed := fs.Uint64("seed", 1, "benchgen seed")
	calls := fs.Int("calls", 0, "timed calls per read case and concurrency (default 1000, 200 with -quick)")
	edits := fs.Int("edits", 200, "file saves timed per store")
	keep := fs.Bool("keep", false, "keep the temporary folder (vaults, state) for inspection")
	readsOn := fs.String("reads-on", "", "developer mode: measure only the reads of serve on this existing vault (benchgen -seed, one -sizes, one -stores), already synced into NEO4J_URI or -state; prints, writes no report")
	stateDir := fs.String("state", "", "with -reads-on and the embedded store: its state folder")
	casesFlag := fs.String("cases", "", "with -reads-on: only these read cases, timed and (on Neo4j) warmed up (comma-separated names, e.g. \"get_node depth=1,get_neighbors\")")
	starts := fs.Int("starts", 0, "with -reads-on (embedded): only restarts of serve, this many rounds, each round one start of every -bins binary: spawn to handshake, to the first correct get_node, to `sync done`, VmHWM then; with -fresh each start syncs into an empty state folder and is measured until its fast-tier vectors are stored; prints, writes no report")
	fresh := fs.Bool("fresh", false, "with -starts: first starts (an empty state folder each time) instead of warm restarts of -state")
	syncs := fs.Int("syncs", 0, "developer mode: only graph-only first syncs of one -sizes vault, this many rounds; each round syncs with every -bins binary into Neo4j, then with the first into the embedded store (-stores limits); prints, writes no report")
	bins := fs.String("bins", "", "with -syncs: comma-separated vaultgraph binaries alternated in each round (an A/B); default -bin")
	model := fs.String("model", "static", "with -reads-on: the built-in embedding model serve runs (minilm: the reads are measured while its transformer pass runs in the background; none: graph only, embedding.provider none, no search tool and no vectors to load)")
	rounds := fs.Int("rounds", 1, "with -reads-on and both -stores (embedded,neo4j): both serves stay up and every read case is timed on each in turn, this many rounds (the order flips each round); prints per-round p50s, their medians and the ratio, and Neo4j's bare round trip")
	warmCalls := fs.Int("warm-calls", neo4jReadWarmCalls, "untimed calls of every read case on Neo4j before any is timed")
	concFlag := fs.String("conc", "1,8", "with -reads-on: concurrencies timed (comma-separated)")
	neoTimeout := fs.Duration("neo4j-timeout", 0, "neo4j.timeout of the vaultgraph processes (0: vaultgraph's default); recorded in the report")
	if err := fs.Parse(args); err != nil {
		return err
	}
	sizes, err := parseSizes(*sizesFlag)
	if err != nil {
		return err
	}
	stores := strings.Split(*storesFlag, ",")
	for _, s := range stores {
		if s != "embedded" && s != "neo4j" {
			return fmt.Errorf("-stores: unknown store %q (embedded, neo4j)", s)
		}
	}
	b := &bench{calls: *calls, warm: 20, neoWarm: *warmCalls, edits: *edits, seed: *seed, logger: logger, starts: *starts, fresh: *fresh}
	if *bins != "" {
		for _, p := range strings.Split(*bins, ",") {
			abs, err := filepath.Abs(p)
			if err != nil {
				return err
			}
			b.bins = append(b.bins, abs)
		}
	}
	if b.calls == 0 {
		b.calls = 1000
		if *quick {
			b.calls = 200
		}
	}
	if b.work, err = os.MkdirTemp("", "vgbench-"); err != nil {
		return err
	}
	if *keep {
		logger.Info("keeping the work folder", "dir", b.work)
	} else {
		defer os.RemoveAll(b.work)
	}
	b.configHome = filepath.Join(b.work, "config")
	if err := os.MkdirAll(b.configHome, 0o755); err != nil {
		return err
	}
	if b.bin, err = binary(ctx, *bin, b.work); err != nil {
		return err
	}

	if *readsOn != "" {
		if len(sizes) != 1 || (len(stores) != 1 && (b.starts > 0 || *rounds < 1)) {
			return errors.New("-reads-on takes one -sizes and one -stores (both with -rounds)")
		}
		var cases []string
		if *casesFlag != "" {
			cases = strings.Split(*casesFlag, ",")
		}
		concs, err := parseConcs(*concFlag)
		if err != nil {
			return err
		}
		if len(stores) > 1 {
			return b.readRounds(ctx, *readsOn, sizes[0], *stateDir, *model, cases, concs, *rounds)
		}
		return b.readsOn(ctx, *readsOn, sizes[0], stores[0], *stateDir, *model, cases, concs)
	}

	if *syncs > 0 {
		if len(sizes) != 1 {
			return errors.New("-syncs takes one -sizes")
		}
		binList := []string{b.bin}
		if *bins != "" {
			binList = nil
			for _, p := range strings.Split(*bins, ",") {
				abs, err := filepath.Abs(p)
				if err != nil {
					return err
				}
				binList = append(binList, abs)
			}
		}
		return b.syncRounds(ctx, sizes[0], stores, binList, *syncs)
	}

	res := &Results{Meta: machine()}
	res.Meta.Command = "go run ./cmd/vgbench " + strings.Join(args, " ")
	res.Meta.Quick, res.Meta.Seed, res.Meta.Calls, res.Meta.Edits = *quick, *seed, b.calls, b.edits
	res.Meta.Commit = commit(ctx)
	res.Meta.Neo4j = "not measured (-stores)"
	if slices.Contains(stores, "neo4j") {
		repo, _ := os.Getwd()
		if b.neo, err = openNeo4j(ctx, repo, logger); err != nil {
			return err
		}
		defer b.neo.close()
		res.Meta.Neo4j = b.neo.version + " " + b.neo.edition
		res.Meta.Neo4jHeap, res.Meta.Neo4jCache, res.Meta.Neo4jSource = b.neo.heapMax, b.neo.pageCache, b.neo.source
		if *neoTimeout > 0 {
			b.neo.timeout = *neoTimeout
			res.Meta.Neo4jSource += fmt.Sprintf("; vaultgraph neo4j.timeout %s", *neoTimeout)
		}
		if err := b.warmNeo4j(ctx); err != nil {
			return err
		}
	}

	rep, err := newReporter(*out)
	if err != nil {
		return err
	}
	start := time.Now()
	for i, n := range sizes {
		done := res.Sizes
		// The report is rewritten after every store run, so an interrupted
		// or failed run still leaves what it measured, marked incomplete.
		progress := func(sz SizeResult, last bool) error {
			res.Sizes = append(slices.Clip(done), sz)
			res.Meta.Incomplete = !last || i < len(sizes)-1
			return rep.write(res)
		}
		if err := b.size(ctx, n, stores, progress); err != nil {
			res.Meta.Incomplete = true
			if len(res.Sizes) > 0 {
				_ = rep.write(res)
			}
			return err
		}
	}
	logger.Info("benchmarks done", "duration", time.Since(start).Round(time.Second))
	return nil
}

// waitNeo4jCaches waits for what serve on Neo4j loads in the background
// after its start, so that the reads measure the steady state: the note
// vectors it mirrors for exact search (neo4jstore/mirror.go; it searches
// through Neo4j's vector index until then) and the note catalog that
// random_node, search_by_tags and link titles come from
// (neo4jstore/catalog.go; the first read starts its load).
func (b *bench) waitNeo4jCaches(ctx context.Context, srv *server, log *slog.Logger) {
	if srv.hasTool("search") {
		waited, ok := srv.waitLog(ctx, "neo4j vector mirror loaded", 2*time.Minute)
		log.Info("neo4j vector mirror", "loaded", ok, "waited_s", waited.Seconds())
	}
	if _, _, err := callTool(ctx, srv, "random_node", map[string]any{}); err != nil {
		log.Warn("random_node before the reads", "err", err)
	}
	waited, ok := srv.waitLog(ctx, "neo4j note catalog loaded", 2*time.Minute)
	log.Info("neo4j note catalog", "loaded", ok, "waited_s", waited.Seconds())
}

// neo4jReadWarmCalls is how many untimed calls of each read case run on
// Neo4j before any read is timed. A fresh JVM has not compiled the read
// statements' code paths yet: on the 100k vault the first 1,000 depth=1
// calls measured 3.1 ms p50 and the next 1,000 on the same server 1.7 ms.
// A team's Neo4j runs for weeks; the benchmark measures that one, as its
// sync warm-up does for writes (warmNeo4j).
const neo4jReadWarmCalls = 300

// warmNeo4jReads calls every read case neo4jReadWarmCalls times (only
// the named cases when cases is not nil: -reads-on -cases), with arguments
// of another seed than the timed calls', and discards the times.
func (b *bench) warmNeo4jReads(ctx context.Context, srv *server, m *benchgen.Manifest, log *slog.Logger, cases []string) error {
	start := time.Now()
	for _, rc := range readCases(m) {
		if !srv.hasTool(rc.tool) || (cases != nil && !slices.Contains(cases, rc.name)) {
			continue
		}
		if _, err := measureReads(ctx, srv, rc, b.neoWarm, 1, 0, b.seed+1000); err != nil {
			return fmt.Errorf("read warm-up: %w", err)
		}
	}
	log.Info("neo4j read warm-up", "calls_per_case", b.neoWarm, "seconds", time.Since(start).Seconds())
	return nil
}

// syncRounds is the -syncs developer mode: graph-only first syncs of an
// n-note vault, rounds times, each round every binary into Neo4j (when
// stores has it) and the first binary into the embedded store, one after
// the other, so an A/B of two builds shares the machine's minutes.
func (b *bench) syncRounds(ctx context.Context, n int, stores, bins []string, rounds int) error {
	dir := filepath.Join(b.work, fmt.Sprintf("vault-%d", n))
	if _, err := benchgen.Generate(dir, benchgen.Config{Notes: n, Seed: b.seed}); err != nil {
		return err
	}
	if slices.Contains(stores, "neo4j") {
		repo, _ := os.Getwd()
		var err error
		if b.neo, err = openNeo4j(ctx, repo, b.logger); err != nil {
			return err
		}
		defer b.neo.close()
		if err := b.warmNeo4j(ctx); err != nil {
			return err
		}
	}
	own := b.bin
	defer func() { b.bin = own }()
	fmt.Printf("%-6s %-9s %-28s %8s %8s %8s %9s %s\n", "round", "store", "binary", "wall s", "vg CPU", "JVM CPU", "RSS MiB", "load")
	for round := 1; round <= rounds; round++ {
		for i, bin := range bins {
			for _, store := range stores {
				if store == "embedded" && i > 0 {
					continue
				}
				t := target{name: store, args: []string{"--store", store}}
				if store == "neo4j" {
					t.env = b.neo.env()
				}
				b.bin = bin
				fs, err := b.firstSync(ctx, dir, t)
				if err != nil {
					return fmt.Errorf("%s, %s: %w", bin, store, err)
				}
				load := ""
				if data, err := os.ReadFile("/proc/loadavg"); err == nil {
					load = strings.Fields(string(data))[0]
				}
				fmt.Printf("%-6d %-9s %-28s %8.2f %8.2f %8.2f %9d %s\n", round, store, filepath.Base(bin), fs.WallS, fs.CPUS, fs.JVMCPUS, fs.PeakRSS>>20, load)
			}
		}
	}
	return nil
}

// readsOn measures the read tools of serve on an existing vault and store
// and logs them: a quick loop for profiling one store's reads without a
// sync. The manifest comes from generating the same vault again.
func (b *bench) readsOn(ctx context.Context, vault string, n int, store, state, model string, cases []string, concs []int) error {
	m, err := benchgen.Generate(filepath.Join(b.work, "manifest"), benchgen.Config{Notes: n, Seed: b.seed})
	if err != nil {
		return err
	}
	t, err := readsOnTarget(store, state, model)
	if err != nil {
		return err
	}
	if b.starts > 0 {
		return b.startRounds(ctx, vault, t, probeNote(m))
	}
	srv, err := b.startServe(ctx, vault, t, probeNote(m))
	if err != nil {
		return err
	}
	defer srv.close()
	if store == "neo4j" {
		b.waitNeo4jCaches(ctx, srv, b.logger)
		if err := b.warmNeo4jReads(ctx, srv, m, b.logger, cases); err != nil {
			return err
		}
	}
	for _, conc := range concs {
		for _, rc := range readCases(m) {
			if !srv.hasTool(rc.tool) || (cases != nil && !slices.Contains(cases, rc.name)) {
				continue
			}
			lat, err := measureReads(ctx, srv, rc, b.calls, conc, b.warm, b.seed)
			if err != nil {
				return err
			}
			fmt.Printf("%-22s c=%d p50 %7.3f ms  p95 %7.3f  p99 %7.3f  %6d B\n", rc.name, conc, lat.P50, lat.P95, lat.P99, lat.Bytes)
		}
	}
	return nil
}

// warmStarts is how many warm restarts are timed (see bench.store).
const warmStarts = 3

// median returns the median of xs (the mean of the middle two for an even
// count); 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// warmupNotes is the size of the vault synced into Neo4j before any
// measurement, up to warmupRounds times: until a sync is no more than 10%
// faster than the one before. A fresh JVM took 19 s for the first 10k
// sync, 6.3 s for the second and 4.5 s from the third on, which is what a
// long-running Neo4j gives.
const (
	warmupNotes  = 10000
	warmupRounds = 4
)

// warmNeo4j syncs a vault of another seed into Neo4j and empties it again,
// untimed, until the syncs stop getting faster: the measured cold syncs
// then start from an empty database on a server whose JIT and query plans
// are warm, as a long-running Neo4j's are, rather than measuring the first
// minutes of a fresh JVM. Embedding is off during the warm-up.
func (b *bench) warmNeo4j(ctx context.Context) error {
	dir := filepath.Join(b.work, "vault-warmup")
	if _, err := benchgen.Generate(dir, benchgen.Config{Notes: warmupNotes, Seed: b.seed + 1000}); err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	env := append(b.neo.env(), "VAULTGRAPH_EMBEDDING_PROVIDER=none")
	var last float64
	for round := 1; round <= warmupRounds; round++ {
		if err := b.neo.clean(ctx); err != nil {
			return fmt.Errorf("empty neo4j: %w", err)
		}
		r, err := b.runSync(ctx, dir, target{name: "neo4j", args: []string{"--store", "neo4j"}, env: env})
		if err != nil {
			return fmt.Errorf("neo4j warm-up sync: %w", err)
		}
		b.logger.Info("neo4j warm-up sync", "round", round, "notes", warmupNotes, "notes_s", r.graph, "wall_s", r.wall.Seconds())
		if last > 0 && r.graph > 0.9*last {
			break
		}
		last = r.graph
	}
	return b.neo.clean(ctx)
}

// size generates a vault of n notes and measures it on every store.
func (b *bench) size(ctx context.Context, n int, stores []string, progress func(sz SizeResult, last bool) error) error {
	dir := filepath.Join(b.work, fmt.Sprintf("vault-%d", n))
	t0 := time.Now()
	m, err := benchgen.Generate(dir, benchgen.Config{Notes: n, Seed: b.seed})
	if err != nil {
		return err
	}
	sz := SizeResult{Notes: n, Bytes: m.Bytes, Links: m.Links, Broken: m.Broken, TopHubIn: m.Hubs(1)[0].InDegree, GenSecs: time.Since(t0).Seconds()}
	b.logger.Info("vault generated", "notes", n, "bytes", m.Bytes, "duration", time.Since(t0).Round(time.Millisecond))
	for k, name := range stores {
		var t target
		switch name {
		case "embedded":
			t = target{name: name, args: []string{"--store", "embedded", "--state-dir", filepath.Join(b.work, fmt.Sprintf("state-%d", n))}}
		case "neo4j":
			if err := b.neo.clean(ctx); err != nil {
				return fmt.Errorf("empty neo4j: %w", err)
			}
			t = target{name: name, args: []string{"--store", "neo4j"}, env: b.neo.env()}
		}
		st, err := b.store(ctx, dir, m, t)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			b.logger.Error("store run failed; recorded in the report", "notes", n, "store", name, "err", err)
			st.Error = err.Error()
		}
		sz.Stores = append(sz.Stores, st)
		if err := progress(sz, k == len(stores)-1); err != nil {
			return err
		}
		if name == "neo4j" {
			// Free the graph for the next size (and leave the database empty).
			if err := b.neo.clean(ctx); err != nil {
				b.logger.Warn("empty neo4j after the run", "err", err)
			}
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		b.logger.Warn("remove vault", "err", err)
	}
	return nil
}

// firstSync runs a graph-only `vaultgraph sync` (embedding.provider none)
// of the vault at dir into an empty store and empties the store again:
// issue 44's first-sync comparison of the two stores. For Neo4j it also
// takes the JVM's CPU seconds during the sync.
func (b *bench) firstSync(ctx context.Context, dir string, t target) (*FirstSync, error) {
	t.env = append(slices.Clip(t.env), "VAULTGRAPH_EMBEDDING_PROVIDER=none")
	var state string
	if t.name == "embedded" {
		var err error
		if state, err = os.MkdirTemp(b.work, "state-first-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(state)
		t.args = []string{"--store", "embedded", "--state-dir", state}
	}
	var jvm0 time.Duration
	jvmOK := false
	if t.name == "neo4j" {
		if err := b.neo.clean(ctx); err != nil {
			return nil, fmt.Errorf("empty neo4j: %w", err)
		}
		jvm0, jvmOK = b.neo.jvmCPU(ctx)
	}
	r, err := b.runSync(ctx, dir, t)
	if err != nil {
		return nil, err
	}
	fs := &FirstSync{WallS: r.wall.Seconds(), CPUS: r.cpu.Seconds(), PeakRSS: r.peakRSS}
	if t.name == "neo4j" {
		if jvm1, ok := b.neo.jvmCPU(ctx); ok && jvmOK {
			fs.JVMCPUS = (jvm1 - jvm0).Seconds()
		}
		if err := b.neo.clean(ctx); err != nil {
			return nil, fmt.Errorf("empty neo4j: %w", err)
		}
	}
	return fs, nil
}

// store measures one store on the vault at dir.
func (b *bench) store(ctx context.Context, dir string, m *benchgen.Manifest, t target) (StoreResult, error) {
	st := StoreResult{Store: t.name, Reads: map[string][]ReadResult{}}
	log := b.logger.With("notes", len(m.Notes), "store", t.name)

	var err error
	if st.FirstSync, err = b.firstSync(ctx, dir, t); err != nil {
		return st, fmt.Errorf("first sync (graph only): %w", err)
	}
	fs := st.FirstSync
	log.Info("first sync (graph only)", "seconds", fs.WallS, "cpu_s", fs.CPUS, "jvm_cpu_s", fs.JVMCPUS, "peak_rss_mib", fs.PeakRSS>>20)

	cold, err := b.runSync(ctx, dir, t)
	if err != nil {
		return st, fmt.Errorf("cold sync: %w", err)
	}
	st.ColdSyncS, st.SyncPeakRSS = cold.wall.Seconds(), cold.peakRSS
	st.GraphSyncS, st.EmbedS = cold.graph, cold.embed
	st.ColdNotesPS = float64(len(m.Notes)) / cold.wall.Seconds()
	log.Info("cold sync", "seconds", st.ColdSyncS, "graph_s", st.GraphSyncS, "embed_s", st.EmbedS, "peak_rss_mib", st.SyncPeakRSS>>20)
	if t.name == "neo4j" {
		st.StoreBytes, st.TxLogBytes = b.neo.storeSize()
	}

	// The warm restart is timed warmStarts times, each serve stopped
	// before the next starts, and the medians are recorded: one start's
	// time moved by a third between minutes on the shared 2-core machine
	// of docs/BENCHMARKS.md. The last serve stays up for the reads.
	var srv *server
	var ready, firstRead []float64
	for range warmStarts {
		if srv != nil {
			srv.close()
		}
		if srv, err = b.startServe(ctx, dir, t, probeNote(m)); err != nil {
			return st, fmt.Errorf("warm restart: %w", err)
		}
		ready = append(ready, srv.ready.Seconds())
		firstRead = append(firstRead, srv.firstRead.Seconds())
		st.WarmSyncedRunsS = append(st.WarmSyncedRunsS, srv.synced.Seconds())
	}
	defer srv.close()
	st.WarmReadyS, st.WarmSyncedS, st.WarmFirstReadS = median(ready), median(st.WarmSyncedRunsS), median(firstRead)
	log.Info("warm restart", "answers_s", st.WarmReadyS, "first_read_s", st.WarmFirstReadS, "synced_s", st.WarmSyncedS, "synced_runs_s", st.WarmSyncedRunsS)
	if t.name == "neo4j" {
		b.waitNeo4jCaches(ctx, srv, log)
		if err := b.warmNeo4jReads(ctx, srv, m, log, nil); err != nil {
			return st, err
		}
	}

	for _, conc := range []int{1, 8} {
		key := strconv.Itoa(conc)
		for _, rc := range readCases(m) {
			if !srv.hasTool(rc.tool) {
				if !slices.Contains(st.Unavailable, rc.tool) {
					st.Unavailable = append(st.Unavailable, rc.tool)
				}
				continue
			}
			lat, err := measureReads(ctx, srv, rc, b.calls, conc, b.warm, b.seed)
			if err != nil {
				return st, err
			}
			st.Reads[key] = append(st.Reads[key], ReadResult{Name: rc.name, latencies: lat})
			log.Info("reads", "case", rc.name, "c", conc, "p50_ms", lat.P50, "p95_ms", lat.P95, "p99_ms", lat.P99)
		}
	}

	st.ServeReadsPeakRSS = srv.peakRSS()
	log.Info("serve peak RSS after the reads", "mib", st.ServeReadsPeakRSS>>20)
	if b.edits > 0 {
		st.Edits, err = measureEdits(ctx, srv, dir, m, b.edits, b.seed)
		if err != nil {
			return st, fmt.Errorf("file saves: %w", err)
		}
		log.Info("file save → store", "p50_ms", st.Edits.P50, "p95_ms", st.Edits.P95)
	}
	st.ServePeakRSS = srv.peakRSS()
	log.Info("serve peak RSS", "mib", st.ServePeakRSS>>20)
	return st, nil
}

// reporter writes the report into path (between the markers), or on
// stdout when path is empty. The previous run is read once, at the start,
// so that rewrites during this run still compare with it.
type reporter struct {
	path string
	prev *Results
}

func newReporter(path string) (*reporter, error) {
	r := &reporter{path: path}
	if path != "" {
		prev, _, err := readPrevious(path)
		if err != nil {
			return nil, err
		}
		if prev != nil && !prev.Meta.Incomplete {
			r.prev = prev
		}
	}
	return r, nil
}

func (r *reporter) write(res *Results) error {
	if r.path == "" {
		if !res.Meta.Incomplete {
			fmt.Print(render(res, nil))
		}
		return nil
	}
	// The rest of the file is read again: it may have been edited by hand
	// while the run went on.
	_, doc, err := readPrevious(r.path)
	if err != nil {
		return err
	}
	if err := os.WriteFile(r.path, []byte(splice(doc, render(res, r.prev))), 0o644); err != nil {
		return err
	}
	slog.Info("report written", "file", r.path, "incomplete", res.Meta.Incomplete)
	return nil
}

// write writes one finished run's report into path.
func write(path string, res *Results) error {
	rep, err := newReporter(path)
	if err != nil {
		return err
	}
	return rep.write(res)
}

// parseConcs parses -conc.
func parseConcs(s string) ([]int, error) {
	var concs []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-conc: %q is not a concurrency (1 or more)", f)
		}
		concs = append(concs, n)
	}
	return concs, nil
}

func parseSizes(s string) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			return nil, fmt.Errorf("-sizes: %q is not a vault size (at least 2 notes)", f)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// binary returns the vaultgraph binary to run: bin when it exists, else
// one built into dir.
func binary(ctx context.Context, bin, dir string) (string, error) {
	if st, err := os.Stat(bin); err == nil && !st.IsDir() {
		return filepath.Abs(bin)
	}
	out := filepath.Join(dir, "vaultgraph")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./cmd/vaultgraph")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build vaultgraph (no %s): %w", bin, err)
	}
	return out, nil
}

// commit is the checked-out commit, "+dirty" when the tree has changes.
func commit(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		c += "+dirty"
	}
	return c
}

// machine describes this computer.
func machine() Meta {
	m := Meta{
		Date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Cores: runtime.NumCPU(),
		GoVersion: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH,
	}
	m.CPU = procField("/proc/cpuinfo", "model name")
	if kb := procField("/proc/meminfo", "MemTotal"); kb != "" {
		v, _ := strconv.ParseInt(strings.Fields(kb)[0], 10, 64)
		m.MemoryBytes = v * 1024
	}
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(data)); len(f) >= 3 {
			m.LoadAvg = strings.Join(f[:3], " ")
		}
	}
	return m
}

// procField is the value of the first "key: value" line of a /proc file.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
