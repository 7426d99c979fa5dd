package main

import (
	"fmt"
	"strings"
)

// Results is one vgbench run: what ran where, and what it measured.
type Results struct {
	Meta  Meta         `json:"meta"`
	Sizes []SizeResult `json:"sizes"`
}

// Meta describes the run: the machine, the Neo4j, the code, the command.
type Meta struct {
	Date        string `json:"date"`
	Commit      string `json:"commit"`
	Command     string `json:"command"`
	Quick       bool   `json:"quick"`
	Seed        uint64 `json:"seed"`
	Cores       int    `json:"cores"`
	CPU         string `json:"cpu"`
	MemoryBytes int64  `json:"memory_bytes"`
	LoadAvg     string `json:"load_avg"` // at the start: a busy machine makes noisy numbers
	GoVersion   string `json:"go_version"`
	OS          string `json:"os"`
	Neo4j       string `json:"neo4j"` // version and edition, or why it was not run
	Neo4jHeap   int64  `json:"neo4j_heap_bytes"`
	Neo4jCache  string `json:"neo4j_page_cache"`
	Neo4jSource string `json:"neo4j_source"`
	Calls       int    `json:"calls"` // timed calls per read case and concurrency
	Edits       int    `json:"edits"`
	// Incomplete marks a report written before the run finished (after
	// each size, or when a run failed or was interrupted).
	Incomplete bool `json:"incomplete,omitempty"`
}

// SizeResult is one generated vault and its measurements on each store.
type SizeResult struct {
	Notes    int           `json:"notes"`
	Bytes    int64         `json:"bytes"`
	Links    int           `json:"links"`
	Broken   int           `json:"broken"`
	TopHubIn int           `json:"top_hub_in_degree"`
	GenSecs  float64       `json:"generate_s"`
	Stores   []StoreResult `json:"stores"`
}

// StoreResult is what one store measured on one vault.
type StoreResult struct {
	Store string `json:"store"`
	// FirstSync is a graph-only first sync into the empty store (issue 44).
	FirstSync *FirstSync `json:"first_sync,omitempty"`
	ColdSyncS float64    `json:"cold_sync_s"`
	// GraphSyncS and EmbedS split the cold sync as its log reports them:
	// the notes into the store ("vault: sync done"), then their embeddings
	// ("semantic: embedding done"); the rest is start-up and migrations.
	GraphSyncS  float64 `json:"graph_sync_s,omitempty"`
	EmbedS      float64 `json:"embed_s,omitempty"`
	ColdNotesPS float64 `json:"cold_notes_per_s"`
	SyncPeakRSS int64   `json:"sync_peak_rss"`
	WarmReadyS  float64 `json:"warm_ready_s"`  // serve on a synced store: spawn to handshake done (median of warmStarts)
	WarmSyncedS float64 `json:"warm_synced_s"` // ... to the end of its first sync (median)
	// WarmFirstReadS is spawn to the first correct get_node answer,
	// asked right after the handshake (median; issue 49.8).
	WarmFirstReadS float64 `json:"warm_first_read_s,omitempty"`
	// WarmSyncedRunsS is each timed start's warm_synced_s, in order.
	WarmSyncedRunsS []float64 `json:"warm_synced_runs_s,omitempty"`
	ServePeakRSS    int64     `json:"serve_peak_rss"` // after the reads and the saves
	// ServeReadsPeakRSS is serve's high-water mark after the reads, before
	// the saves (issue 24's "after sync and reads").
	ServeReadsPeakRSS int64     `json:"serve_reads_peak_rss,omitempty"`
	StoreBytes        int64     `json:"neo4j_store_bytes,omitempty"`
	TxLogBytes        int64     `json:"neo4j_txlog_bytes,omitempty"`
	Edits             latencies `json:"edits"`
	// Reads maps concurrency ("1", "8") to the read cases in order.
	Reads       map[string][]ReadResult `json:"reads"`
	Unavailable []string                `json:"unavailable,omitempty"` // read tools the server does not list
	Error       string                  `json:"error,omitempty"`       // the store's run stopped here
}

// FirstSync is one `vaultgraph sync` with embedding.provider none into an
// empty store (issue 44): the notes only, as the two stores compare.
type FirstSync struct {
	WallS   float64 `json:"wall_s"`
	CPUS    float64 `json:"cpu_s"`               // vaultgraph's user + system seconds
	JVMCPUS float64 `json:"jvm_cpu_s,omitempty"` // Neo4j's JVM's during the sync; 0 when unknown or embedded
	PeakRSS int64   `json:"peak_rss"`            // vaultgraph's
}

// ReadResult is one read case at one concurrency.
type ReadResult struct {
	Name string `json:"name"`
	latencies
}

// metric is one comparable figure of a run, keyed by where it comes from.
type metric struct {
	key         string
	value       float64
	lowerBetter bool
}

// metrics flattens r into comparable figures (for regression checks).
func (r *Results) metrics() []metric {
	var out []metric
	add := func(key string, v float64, lower bool) {
		if v > 0 {
			out = append(out, metric{key, v, lower})
		}
	}
	for _, sz := range r.Sizes {
		for _, st := range sz.Stores {
			p := fmt.Sprintf("%d/%s/", sz.Notes, st.Store)
			if fs := st.FirstSync; fs != nil {
				add(p+"first sync (graph only) s", fs.WallS, true)
				add(p+"first sync (graph only) CPU s", fs.CPUS, true)
				add(p+"first sync (graph only) JVM CPU s", fs.JVMCPUS, true)
				add(p+"first sync (graph only) peak RSS", float64(fs.PeakRSS), true)
			}
			add(p+"cold sync s", st.ColdSyncS, true)
			add(p+"graph sync s", st.GraphSyncS, true)
			add(p+"sync peak RSS", float64(st.SyncPeakRSS), true)
			add(p+"warm restart s", st.WarmReadyS, true)
			add(p+"warm restart synced s", st.WarmSyncedS, true)
			add(p+"warm restart first read s", st.WarmFirstReadS, true)
			add(p+"serve peak RSS", float64(st.ServePeakRSS), true)
			add(p+"serve peak RSS after reads", float64(st.ServeReadsPeakRSS), true)
			add(p+"save→store p95 ms", st.Edits.P95, true)
			for conc, reads := range st.Reads {
				for _, rr := range reads {
					add(fmt.Sprintf("%sc=%s/%s p50 ms", p, conc, rr.Name), rr.P50, true)
					add(fmt.Sprintf("%sc=%s/%s p95 ms", p, conc, rr.Name), rr.P95, true)
				}
			}
		}
	}
	return out
}

// read returns the read case name of st at concurrency conc.
func (st *StoreResult) read(conc, name string) (ReadResult, bool) {
	for _, rr := range st.Reads[conc] {
		if rr.Name == name {
			return rr, true
		}
	}
	return ReadResult{}, false
}

func mib(b int64) string {
	if b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

func ms(v float64) string {
	switch {
	case v <= 0:
		return "–"
	case v < 1:
		return fmt.Sprintf("%.2f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

func secs(v float64) string {
	if v <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f s", v)
}

func sizeLabel(n int) string {
	if n%1000 == 0 {
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// cell escapes a markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
