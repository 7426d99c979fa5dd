package server_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/vaultgraph/vaultgraph/benchgen"
	"github.com/vaultgraph/vaultgraph/server"
)

// BenchmarkHTTPGetNode is one get_node call through the mcp-go client,
// streamable HTTP, bearer auth, the middleware and the graph service.
func BenchmarkHTTPGetNode(b *testing.B) {
	f := newFixture(b)
	ts, _ := httpServer(b, f, server.HTTPOptions{Tokens: tokens})
	c := httpClient(b, ts, writeToken)
	args := map[string]any{"id": "notes/graphcore.md", "depth": 1}
	b.ReportAllocs()
	for b.Loop() {
		if res, _ := callTool(b, c, "get_node", args); res.IsError {
			b.Fatal("error result")
		}
	}
}

// BenchmarkStdioReads are read calls through ServeStdio on in-process
// pipes and mcp-go's client: everything "vaultgraph serve" does for a call
// but the process boundary. With -cpuprofile it shows where a call's time
// goes beyond the store (JSON on both sides, the transport).
func BenchmarkStdioReads(b *testing.B) {
	f := newFixture(b)
	c, _ := stdioClient(b, f)
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
	}{
		{"get_node", "get_node", map[string]any{"id": "notes/graphcore.md"}},
		{"get_node big", "get_node", map[string]any{"id": "big/exact-primary.md"}},
		{"get_node depth=1 big", "get_node", map[string]any{"id": "big/ctx.md", "depth": 1}},
		{"get_neighbors", "get_neighbors", map[string]any{"id": "notes/graphcore.md"}},
		{"find_path", "find_path", map[string]any{"source": "notes/index.md", "target": "notes/node.md"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res, _ := callTool(b, c, tc.tool, tc.args); res.IsError {
					b.Fatal("error result")
				}
			}
		})
	}
}

// BenchmarkStdioRawReads are the calls of BenchmarkStdioReads written as
// JSON-RPC lines, timed until the answer's line is read, without a client
// that decodes it: the server's share of a call.
func BenchmarkStdioRawReads(b *testing.B) {
	f := newFixture(b)
	rc := rawStdio(b, f)
	for _, tc := range []struct {
		name, tool string
		args       string
	}{
		{"get_node", "get_node", `{"id":"notes/graphcore.md"}`},
		{"get_node big", "get_node", `{"id":"big/exact-primary.md"}`},
		{"get_node depth=1 big", "get_node", `{"id":"big/ctx.md","depth":1}`},
		{"get_neighbors", "get_neighbors", `{"id":"notes/graphcore.md"}`},
		{"find_path", "find_path", `{"source":"notes/index.md","target":"notes/node.md"}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			var size int
			for b.Loop() {
				line := rc.call(b, tc.tool, tc.args)
				if bytes.Contains(line, []byte(`"isError":true`)) {
					b.Fatalf("error result: %.300s", line)
				}
				size = len(line)
			}
			b.ReportMetric(float64(size), "B/answer")
		})
	}
}

// BenchmarkStdioRawBenchgen is BenchmarkStdioRawReads on a generated vault
// of 10k notes (benchgen, as make bench uses; VAULTGRAPH_BENCH_NOTES=100000
// for the other size), with the arguments vgbench draws: the answers have
// the sizes of the end-to-end figures, without Neo4j or a process boundary.
// Profile a case with -bench 'StdioRawBenchgen/get_node_depth=1' -cpuprofile.
func BenchmarkStdioRawBenchgen(b *testing.B) {
	notes := 10_000
	if v := os.Getenv("VAULTGRAPH_BENCH_NOTES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("VAULTGRAPH_BENCH_NOTES=%q: want a positive number of notes", v)
		}
		notes = n
	}
	dir := b.TempDir()
	m, err := benchgen.Generate(dir, benchgen.Config{Notes: notes, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	rc := rawStdio(b, fixtureOn(b, dir, nil))
	ids := make([]string, len(m.Notes))
	for i, n := range m.Notes {
		ids[i] = n.ID()
	}
	var tags []string
	for _, n := range m.Notes {
		tags = append(tags, n.Tags...)
	}
	for _, tc := range []struct {
		name, tool string
		args       func(rng *rand.Rand) string
	}{
		{"get_node", "get_node", func(rng *rand.Rand) string { return fmt.Sprintf(`{"id":%q}`, ids[rng.IntN(len(ids))]) }},
		{"get_node depth=1", "get_node", func(rng *rand.Rand) string {
			return fmt.Sprintf(`{"id":%q,"depth":1}`, ids[rng.IntN(len(ids))])
		}},
		{"get_neighbors", "get_neighbors", func(rng *rand.Rand) string { return fmt.Sprintf(`{"id":%q}`, ids[rng.IntN(len(ids))]) }},
		{"search_by_tags", "search_by_tags", func(rng *rand.Rand) string {
			return fmt.Sprintf(`{"tags":[%q]}`, tags[rng.IntN(len(tags))])
		}},
		{"random_node", "random_node", func(*rand.Rand) string { return `{}` }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			size := 0
			for b.Loop() {
				line := rc.call(b, tc.tool, tc.args(rng))
				if bytes.Contains(line, []byte(`"isError":true`)) {
					b.Fatalf("error result: %.300s", line)
				}
				size += len(line)
			}
			b.ReportMetric(float64(size)/float64(b.N), "B/answer")
		})
	}
}
