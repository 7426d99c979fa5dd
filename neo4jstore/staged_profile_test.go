package neo4jstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
)

// TestProfileStagedWrite shows where Neo4j's work goes in a first sync: a
// staged write of a benchSpec vault of VAULTGRAPH_PROFILE_STAGED notes
// (2,800 bytes of text a note, the mean of benchgen's vaults) in parts of
// 4,000 notes, as the vault streams one. Per statement: its calls, its time
// and the Neo4j JVM's CPU seconds while it ran (read from /proc when the
// server runs on this machine; concurrent statements of one name share
// theirs), then per stage, and the fulltext index's catch-up after the
// write. With VAULTGRAPH_PROFILE_DBHITS=1 a second write into another
// project runs every statement under PROFILE and adds each statement's db
// hits by operator.
//
//	VAULTGRAPH_PROFILE_STAGED=10000 VAULTGRAPH_PROFILE_DBHITS=1 go test ./neo4jstore -run TestProfileStagedWrite -v
//
// It checks nothing: it is how the figures of docs/BENCHMARKS.md's Neo4j
// first-sync sections are measured.
func TestProfileStagedWrite(t *testing.T) {
	size, _ := strconv.Atoi(os.Getenv("VAULTGRAPH_PROFILE_STAGED"))
	if size <= 0 {
		t.Skip("set VAULTGRAPH_PROFILE_STAGED=<notes> to profile a staged write")
	}
	obs := &cpuObserver{stats: map[string]*stmtCost{}}
	ctx := context.Background()
	cfg := configFor(neo4jtest.Get(t))
	cfg.Observer = obs
	openCtx, cancel := context.WithTimeout(ctx, 15*time.Minute) // a loaded machine: migrations take minutes
	s, err := Open(openCtx, cfg)
	cancel()
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	defer s.Close(ctx)
	obs.pid = jvmPid(t)
	spec := benchSpec(size)
	spec.content = 2800
	notes := spec.generate()
	const part = 4000

	stream := func(project string, stage func(string)) {
		st, err := s.BeginStaged(ctx, project, nil)
		if err != nil {
			t.Fatal(err)
		}
		for chunk := range slices.Chunk(notes, part) {
			if err := st.Write(ctx, chunk); err != nil {
				t.Fatal(err)
			}
		}
		stage("stage 1 (Write, every part)")
		if err := st.Finish(ctx); err != nil {
			t.Fatal(err)
		}
		stage("stages 2-4 (Finish)")
		if err := s.read(ctx, "await fulltext", func(t txn) error {
			_, err := t.collect(stmtSearchKeywordRefresh, nil)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		stage("fulltext catch-up")
	}

	// Warm-up: the JVM compiles the write statements in its first sync.
	warm := spec
	warm.notes = min(size, part)
	saved := notes
	notes = warm.generate()
	stream(fmt.Sprintf("stagedprof-warm-%d", rand.Uint64()), func(string) {})
	notes = saved

	obs.reset()
	gc0 := jvmGC(t)
	start, cpu0 := time.Now(), obs.cpu()
	last := cpu0
	var stages []string
	stream(fmt.Sprintf("stagedprof-%d-%d", size, rand.Uint64()), func(name string) {
		c := obs.cpu()
		stages = append(stages, fmt.Sprintf("%-34s JVM CPU %6.2f s", name, c-last))
		last = c
	})
	t.Logf("%d notes, %d links: wall %.1f s, JVM CPU %.2f s, of which the collector's time %.2f s", size, countLinks(notes),
		time.Since(start).Seconds(), obs.cpu()-cpu0, jvmGC(t)-gc0)
	for _, line := range stages {
		t.Log(line)
	}
	obs.print(t)

	if os.Getenv("VAULTGRAPH_PROFILE_DBHITS") == "" {
		return
	}
	hits := &hitSink{stmt: map[string]*stmtHits{}}
	profileHook = hits.add
	defer func() { profileHook = nil }()
	stream(fmt.Sprintf("stagedprof-hits-%d-%d", size, rand.Uint64()), func(string) {})
	profileHook = nil
	hits.print(t)
}

func countLinks(notes []core.Note) int {
	n := 0
	for i := range notes {
		n += len(notes[i].Links)
	}
	return n
}

// jvmPid is the pid of the test server's JVM when it runs on this machine
// (0 otherwise: CPU figures are then 0).
func jvmPid(t *testing.T) int {
	v, err := jmx(t, "CALL dbms.queryJmx('java.lang:type=Runtime') YIELD attributes RETURN attributes.Pid.value")
	if err != nil {
		t.Logf("no JVM pid (%v): CPU figures are 0", err)
		return 0
	}
	pid, _ := v.(int64)
	if _, err := os.Stat(fmt.Sprintf("/proc/%d/stat", pid)); err != nil {
		t.Logf("JVM %d is not on this machine: CPU figures are 0", pid)
		return 0
	}
	return int(pid)
}

// jvmGC is the test server's garbage collectors' total time so far, in
// seconds (their CollectionTime MXBean attributes; 0 when not readable).
func jvmGC(t *testing.T) float64 {
	v, err := jmx(t, "CALL dbms.queryJmx('java.lang:type=GarbageCollector,name=*') YIELD attributes RETURN sum(attributes.CollectionTime.value)")
	if err != nil {
		t.Logf("no collector time: %v", err)
		return 0
	}
	ms, _ := v.(int64)
	return float64(ms) / 1000
}

// jmx is the first value of query's first record on the test server.
func jmx(t *testing.T, query string) (any, error) {
	srv := neo4jtest.Get(t)
	res, err := neo4j.ExecuteQuery(context.Background(), srv.Driver(t), query, nil,
		neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithDatabase(srv.Database))
	if err != nil {
		return nil, err
	}
	if len(res.Records) == 0 {
		return nil, errors.New("no record")
	}
	return res.Records[0].Values[0], nil
}

// cpuObserver charges the JVM's CPU since the last statement ended to the
// statement that ends.
type cpuObserver struct {
	nopObserver
	pid   int
	mu    sync.Mutex
	last  float64
	stats map[string]*stmtCost
}

type stmtCost struct {
	calls     int
	took, cpu float64
}

func (o *cpuObserver) cpu() float64 {
	if o.pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", o.pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100 // clock ticks (USER_HZ)
}

func (o *cpuObserver) reset() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.stats = map[string]*stmtCost{}
	o.last = o.cpu()
}

func (o *cpuObserver) Statement(name string, took time.Duration, _ bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	c := o.cpu()
	st := o.stats[name]
	if st == nil {
		st = &stmtCost{}
		o.stats[name] = st
	}
	st.calls++
	st.took += took.Seconds()
	st.cpu += c - o.last
	o.last = c
}

func (o *cpuObserver) print(t *testing.T) {
	o.mu.Lock()
	defer o.mu.Unlock()
	names := make([]string, 0, len(o.stats))
	for n := range o.stats {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return int(1000 * (o.stats[b].cpu - o.stats[a].cpu)) })
	for _, n := range names {
		st := o.stats[n]
		t.Logf("%-28s calls %5d  time %7.2f s  JVM CPU %7.2f s", n, st.calls, st.took, st.cpu)
	}
}

// hitSink adds up the db hits of profiled statements.
type hitSink struct {
	mu   sync.Mutex
	stmt map[string]*stmtHits
}

type stmtHits struct {
	calls int
	hits  int64
	ops   map[string]int64
}

func (h *hitSink) add(name string, plan neo4j.ProfiledPlan) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.stmt[name]
	if st == nil {
		st = &stmtHits{ops: map[string]int64{}}
		h.stmt[name] = st
	}
	st.calls++
	var walk func(p neo4j.ProfiledPlan)
	walk = func(p neo4j.ProfiledPlan) {
		if p == nil {
			return
		}
		st.hits += p.DbHits()
		st.ops[p.Operator()] += p.DbHits()
		for _, c := range p.Children() {
			walk(c)
		}
	}
	walk(plan)
}

func (h *hitSink) print(t *testing.T) {
	names := make([]string, 0, len(h.stmt))
	for n := range h.stmt {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return int(h.stmt[b].hits - h.stmt[a].hits) })
	for _, n := range names {
		st := h.stmt[n]
		var ops []string
		for op, k := range st.ops {
			if k > 0 {
				ops = append(ops, fmt.Sprintf("%s %d", op, k))
			}
		}
		slices.Sort(ops)
		t.Logf("%-28s calls %5d  db hits %10d  (%s)", n, st.calls, st.hits, strings.Join(ops, ", "))
	}
}
