package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/benchgen"
)

// readCase is one read tool call shape: a tool and how to draw its
// arguments from the vault's manifest.
type readCase struct {
	name string // row label, e.g. "get_hubs pagerank"
	tool string
	args func(rng *rand.Rand) map[string]any
}

// readCases are the read tools of the graph toolset (spec 000), each with
// arguments a client would send: ids of existing notes, popular tags, every
// hub metric. search is first and only runs when the server lists it.
func readCases(m *benchgen.Manifest) []readCase {
	if m == nil { // names only
		m = &benchgen.Manifest{}
	}
	ids := make([]string, len(m.Notes))
	for i, n := range m.Notes {
		ids[i] = n.ID()
	}
	id := func(rng *rand.Rand) string { return ids[rng.IntN(len(ids))] }
	// Tags are drawn from notes, so popular tags come up as often as a
	// client browsing the vault would ask for them.
	tag := func(rng *rand.Rand) string {
		for {
			if n := m.Notes[rng.IntN(len(m.Notes))]; len(n.Tags) > 0 {
				return n.Tags[rng.IntN(len(n.Tags))]
			}
		}
	}
	query := func(rng *rand.Rand) string {
		t := strings.ReplaceAll(tag(rng), "/", " ")
		return "notes about " + t + " and " + strings.ReplaceAll(tag(rng), "/", " ")
	}
	return []readCase{
		{"search", "search", func(rng *rand.Rand) map[string]any { return map[string]any{"query": query(rng), "limit": 10} }},
		{"get_node", "get_node", func(rng *rand.Rand) map[string]any { return map[string]any{"id": id(rng)} }},
		{"get_node depth=1", "get_node", func(rng *rand.Rand) map[string]any { return map[string]any{"id": id(rng), "depth": 1} }},
		{"get_neighbors", "get_neighbors", func(rng *rand.Rand) map[string]any { return map[string]any{"id": id(rng)} }},
		{"find_path", "find_path", func(rng *rand.Rand) map[string]any { return map[string]any{"source": id(rng), "target": id(rng)} }},
		{"get_hubs in_degree", "get_hubs", func(*rand.Rand) map[string]any { return map[string]any{"metric": "in_degree"} }},
		{"get_hubs out_degree", "get_hubs", func(*rand.Rand) map[string]any { return map[string]any{"metric": "out_degree"} }},
		{"get_hubs pagerank", "get_hubs", func(*rand.Rand) map[string]any { return map[string]any{"metric": "pagerank"} }},
		{"search_by_tags", "search_by_tags", func(rng *rand.Rand) map[string]any { return map[string]any{"tags": []string{tag(rng)}} }},
		{"search_by_tags all", "search_by_tags", func(rng *rand.Rand) map[string]any {
			return map[string]any{"tags": []string{tag(rng), tag(rng)}, "mode": "all"}
		}},
		{"random_node", "random_node", func(*rand.Rand) map[string]any { return map[string]any{} }},
		{"random_node tagged", "random_node", func(rng *rand.Rand) map[string]any { return map[string]any{"tags": []string{tag(rng)}} }},
	}
}

// latencies summarises one read case at one concurrency.
type latencies struct {
	Calls  int     `json:"calls"`
	Errors int     `json:"errors"`
	P50    float64 `json:"p50_ms"`
	P95    float64 `json:"p95_ms"`
	P99    float64 `json:"p99_ms"`
	QPS    float64 `json:"qps"`
	// Bytes is the mean size of the tool result's text (the JSON the
	// client decodes), which dominates the cost of the list tools.
	Bytes int `json:"bytes,omitempty"`
}

// measureReads calls rc calls times through s, from conc goroutines
// sharing the one stdio session (as one assistant firing parallel tool
// calls does), after warm calls that are not counted.
func measureReads(ctx context.Context, s *server, rc readCase, calls, conc, warm int, seed uint64) (latencies, error) {
	rng := rand.New(rand.NewPCG(seed, 7))
	argsList := make([]map[string]any, warm+calls)
	for i := range argsList {
		argsList[i] = rc.args(rng)
	}
	for _, a := range argsList[:warm] {
		if _, _, err := callTool(ctx, s, rc.tool, a); err != nil {
			return latencies{}, fmt.Errorf("%s warm-up: %w", rc.name, err)
		}
	}
	work := argsList[warm:]
	lat := make([]time.Duration, len(work))
	errs := make([]error, len(work))
	sizes := make([]int, len(work))
	next := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for range conc {
		wg.Go(func() {
			for i := range next {
				var text string
				text, lat[i], errs[i] = callTool(ctx, s, rc.tool, work[i])
				sizes[i] = len(text)
			}
		})
	}
	for i := range work {
		next <- i
	}
	close(next)
	wg.Wait()
	elapsed := time.Since(start)
	res := latencies{Calls: len(work), QPS: float64(len(work)) / elapsed.Seconds()}
	total := 0
	for _, n := range sizes {
		total += n
	}
	res.Bytes = total / len(work)
	var firstErr error
	for _, err := range errs {
		if err != nil {
			res.Errors++
			if firstErr == nil {
				firstErr = err
			}
		}
	}
	if res.Errors > 0 {
		return res, fmt.Errorf("%s: %d of %d calls failed, first: %w", rc.name, res.Errors, len(work), firstErr)
	}
	res.P50, res.P95, res.P99 = percentileMS(lat, 0.50), percentileMS(lat, 0.95), percentileMS(lat, 0.99)
	return res, nil
}

// callTool calls a tool and returns its text and the time its answer
// took (see rpcClient); a tool error result is an error (every benchmark
// call has valid arguments).
func callTool(ctx context.Context, s *server, tool string, args map[string]any) (string, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	res, elapsed, err := s.c.callTool(ctx, tool, args)
	if err != nil {
		return "", elapsed, err
	}
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if res.IsError {
		args, _ := json.Marshal(args)
		return "", elapsed, fmt.Errorf("%s(%s) returned an error: %s", tool, args, text.String())
	}
	return text.String(), elapsed, nil
}

// percentileMS is the q-quantile of lat in milliseconds (nearest rank).
func percentileMS(lat []time.Duration, q float64) float64 {
	if len(lat) == 0 {
		return 0
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	i := int(q*float64(len(s)) + 0.5)
	i = min(max(i-1, 0), len(s)-1)
	return float64(s[i].Nanoseconds()) / 1e6
}

// lockedWriter serialises writes to w (the stdio transport writes stderr
// from its own goroutine).
type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
