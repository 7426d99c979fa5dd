package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func sample(coldSync, getNodeP50 float64) *Results {
	return &Results{
		Meta: Meta{Date: "d", Commit: "c", Cores: 2},
		Sizes: []SizeResult{{Notes: 10_000, Stores: []StoreResult{{
			Store: "neo4j", ColdSyncS: coldSync, ColdNotesPS: 10_000 / coldSync,
			Reads: map[string][]ReadResult{"1": {{Name: "get_node", latencies: latencies{Calls: 10, P50: getNodeP50, P95: getNodeP50 * 2}}}},
		}}}},
	}
}

// A rerun keeps the hand-written text around the generated section, finds
// the previous figures in it, and flags only what got over 20% worse.
func TestWriteKeepsHandWrittenTextAndFlagsRegressions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	if err := os.WriteFile(path, []byte("# Benchmarks\n\nintro by hand\n\n"+beginMarker+"\nold\n"+endMarker+"\n\n## Appendix by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := write(path, sample(4.0, 1.0)); err != nil {
		t.Fatal(err)
	}
	// Cold sync 4 s -> 6 s is 50% worse; get_node 1.0 -> 1.1 ms is 10%, not flagged.
	if err := write(path, sample(6.0, 1.1)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, want := range []string{"intro by hand", "## Appendix by hand", "**Regressions (over 20% worse):**", "| 10000/neo4j/cold sync s | 4.00 s | 6.00 s | +50% |", "cold sync 10k into neo4j (notes; embedding after) | ≤ 5.00 s | 6.00 s | **missed by 1.00 s (20%)**"} {
		if !strings.Contains(doc, want) {
			t.Errorf("report lacks %q:\n%s", want, doc)
		}
	}
	if strings.Contains(doc, "get_node p50 ms |") {
		t.Errorf("a 10%% change was flagged as a regression:\n%s", doc)
	}
	if n := strings.Count(doc, beginMarker); n != 1 {
		t.Errorf("%d generated sections, want 1", n)
	}
	if strings.Contains(doc, "\nold\n") {
		t.Error("the previous generated section was not replaced")
	}
}

// A file without markers gets the section appended; nothing is lost.
func TestSpliceAppendsWithoutMarkers(t *testing.T) {
	got := splice("# Benchmarks\n\nnotes\n", beginMarker+"\nnew\n"+endMarker+"\n")
	if !strings.HasPrefix(got, "# Benchmarks\n\nnotes\n\n"+beginMarker) || !strings.Contains(got, "new") {
		t.Errorf("splice = %q", got)
	}
}

func TestPercentileNearestRank(t *testing.T) {
	var lat []time.Duration
	for i := 100; i >= 1; i-- { // unsorted input
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	for q, want := range map[float64]float64{0.5: 50, 0.95: 95, 0.99: 99, 1: 100} {
		if got := percentileMS(lat, q); got != want {
			t.Errorf("percentile %.2f = %v ms, want %v", q, got, want)
		}
	}
	if got := percentileMS(nil, 0.5); got != 0 {
		t.Errorf("percentile of nothing = %v, want 0", got)
	}
}

func TestLogSecondsReadsTheLastSummary(t *testing.T) {
	stderr := `time=x level=INFO msg="vault: sync done" project=default notes=3 seconds=1.5
time=x level=INFO msg="semantic: embedding progress" done=1 seconds=0.2
time=x level=INFO msg="semantic: embedding done" embedded=3 seconds=0.75
time=x level=INFO msg="vault: sync done" project=other seconds=2.25 notes=1`
	if got := logSeconds(stderr, "vault: sync done"); got != 2.25 {
		t.Errorf("sync seconds = %v, want 2.25 (the last line)", got)
	}
	if got := logSeconds(stderr, "semantic: embedding done"); got != 0.75 {
		t.Errorf("embedding seconds = %v, want 0.75", got)
	}
	if got := logSeconds(stderr, "absent"); got != 0 {
		t.Errorf("absent = %v, want 0", got)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{1.2}, 1.2}, {[]float64{1.4, 0.9, 1.1}, 1.1}, {[]float64{2, 1}, 1.5}} {
		if got := median(c.xs); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}

// A previous run on another processor is compared, and said to be.
func TestCompareSaysWhenTheMachineChanged(t *testing.T) {
	prev, cur := sample(4.0, 1.0), sample(6.0, 1.0)
	if got := compare(prev, cur); strings.Contains(got, "another processor") {
		t.Errorf("same processor called another:\n%s", got)
	}
	prev.Meta.CPU, cur.Meta.CPU = "AMD EPYC", "Intel(R) Xeon(R) Processor"
	got := compare(prev, cur)
	for _, want := range []string{"+50%", "The previous run was on another processor (AMD EPYC; this one: Intel(R) Xeon(R) Processor)"} {
		if !strings.Contains(got, want) {
			t.Errorf("comparison lacks %q:\n%s", want, got)
		}
	}
}

// Issue 24's lines are in the targets, the serve peak after the reads
// among them (MB of 10^6 bytes).
func TestIssue24Targets(t *testing.T) {
	r := &Results{Meta: Meta{Date: "d", Commit: "c", Cores: 2}, Sizes: []SizeResult{{Notes: 100_000, Stores: []StoreResult{{
		Store: "embedded", ColdSyncS: 20, ColdNotesPS: 5000, SyncPeakRSS: 540 << 20, WarmSyncedS: 0.87,
		ServeReadsPeakRSS: 370 << 20, ServePeakRSS: 404 << 20,
		Reads: map[string][]ReadResult{"1": {{Name: "get_node depth=1", latencies: latencies{Calls: 10, P50: 0.64}}}},
	}}}}}
	doc := render(r, nil)
	for _, want := range []string{
		"| serve peak RSS after sync and reads at 100k, embedded (issue 24) | ≤ 381 MiB | 370 MiB | met |",
		"| sync peak RSS at 100k, embedded (issue 24) | ≤ 572 MiB | 540 MiB | met |",
		"| warm restart to synced at 100k, embedded (issue 24) | ≤ 1.00 s | 0.87 s | met |",
		"| get_node depth=1 p50 (c=1) at 100k, embedded (issue 24) | ≤ 0.50 ms | 0.64 ms | **missed",
		"370 MiB / 404 MiB",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("report lacks %q:\n%s", want, doc)
		}
	}
	if strings.Contains(doc, "at 10k, embedded (issue 24)") {
		t.Errorf("a line of a size not measured:\n%s", doc)
	}
}

// Issue 44's lines compare Neo4j with the embedded store of the same run:
// the graph-only first sync (wall, RSS) and read p50s, as ratios.
func TestIssue44RatiosComeFromTheSameRun(t *testing.T) {
	reads := func(p50 float64) map[string][]ReadResult {
		m := map[string][]ReadResult{}
		for _, name := range issue44ReadCases {
			m["1"] = append(m["1"], ReadResult{Name: name, latencies: latencies{Calls: 10, P50: p50}})
		}
		return m
	}
	r := &Results{Meta: Meta{Date: "d", Commit: "c", Cores: 2}, Sizes: []SizeResult{{Notes: 100_000, Stores: []StoreResult{
		{Store: "embedded", FirstSync: &FirstSync{WallS: 10, CPUS: 12, PeakRSS: 500 << 20}, Reads: reads(0.2)},
		{Store: "neo4j", FirstSync: &FirstSync{WallS: 20, CPUS: 8, JVMCPUS: 30, PeakRSS: 400 << 20}, Reads: reads(0.5)},
	}}}}
	doc := render(r, nil)
	for _, want := range []string{
		"| first sync, graph only, wall time at 100k, neo4j ÷ embedded (issue 44) | ≤ 1.50 × | 2.00 × | **missed by 0.50 × (33%)** |",
		"| first sync, graph only, vaultgraph peak RSS at 100k, neo4j ÷ embedded (issue 44) | ≤ 1.00 × | 0.80 × | met |",
		"| find_path p50 (c=1) at 100k, neo4j ÷ embedded (issue 44) | ≤ 3.00 × | 2.50 × | met |",
		"| 100000 | neo4j | 20.00 s | 8.00 s | 30.00 s | 400 MiB |",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("report lacks %q:\n%s", want, doc)
		}
	}
}
