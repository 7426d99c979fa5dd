package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/vaultgraph/vaultgraph/benchgen"
	"github.com/vaultgraph/vaultgraph/cypher"
)

// readsOnTarget is the serve configuration of -reads-on for store: the
// embedded store in state, or Neo4j at NEO4J_URI (read, never emptied);
// model is the built-in embedding model, or "none" for a graph-only
// serve (embedding.provider none: no search tool, no vectors to load or
// embed beside the reads).
func readsOnTarget(store, state, model string) (target, error) {
	t := target{name: store, args: []string{"--store", store}}
	switch store {
	case "embedded":
		if state == "" {
			return t, errors.New("-reads-on with the embedded store needs -state")
		}
		t.args = append(t.args, "--state-dir", state)
	case "neo4j":
		s := neo4jFromEnv()
		if s.uri == "" {
			return t, errors.New("-reads-on with neo4j needs NEO4J_URI (the database is read, never emptied)")
		}
		t.env = s.env()
	}
	// After baseEnv's: the last value wins.
	if model == "none" {
		t.env = append(t.env, "VAULTGRAPH_EMBEDDING_PROVIDER=none")
	} else {
		t.env = append(t.env, "VAULTGRAPH_EMBEDDING_MODEL="+model)
	}
	return t, nil
}

// neo4jFromEnv is the server NEO4J_URI (NEO4J_USER, NEO4J_PASSWORD,
// NEO4J_DATABASE) names, not yet connected.
func neo4jFromEnv() *neo4jServer {
	return &neo4jServer{uri: os.Getenv("NEO4J_URI"), user: os.Getenv("NEO4J_USER"),
		password: os.Getenv("NEO4J_PASSWORD"), database: os.Getenv("NEO4J_DATABASE"), stop: func() {}}
}

// roundTripCase is the row of readRounds' table that times Neo4j's bare
// round trip (see measureRoundTrip).
const roundTripCase = "neo4j round trip (graph_version, no MCP)"

// readRounds is -reads-on with both stores: an embedded serve (on -state)
// and a Neo4j serve (on NEO4J_URI) of the same synced vault stay up side
// by side, Neo4j's is warmed up once, and then every read case is timed
// on one and then the other, rounds times, the order flipping each round,
// so both stores share the machine's minutes (issue 44.4 compares them
// by ratio on a busy machine). Each round also times Neo4j's bare round
// trip from this process. Nothing is synced or emptied: the stores are
// synced beforehand (docs/BENCHMARKS.md, "How to run"), so a run costs
// the serve starts, the warm-up and the timed calls only.
func (b *bench) readRounds(ctx context.Context, vault string, n int, state, model string, cases []string, concs []int, rounds int) error {
	m, err := benchgen.Generate(filepath.Join(b.work, "manifest"), benchgen.Config{Notes: n, Seed: b.seed})
	if err != nil {
		return err
	}
	stores := []string{"embedded", "neo4j"}
	srvs := map[string]*server{}
	for _, store := range stores {
		t, err := readsOnTarget(store, state, model)
		if err != nil {
			return err
		}
		log := b.logger.With("store", store)
		srv, err := b.startServe(ctx, vault, t, probeNote(m))
		if err != nil {
			return fmt.Errorf("%s: %w", store, err)
		}
		defer srv.close()
		log.Info("serve synced", "answers_s", srv.ready.Seconds(), "synced_s", srv.synced.Seconds())
		if store == "neo4j" {
			b.waitNeo4jCaches(ctx, srv, log)
			if err := b.warmNeo4jReads(ctx, srv, m, log, cases); err != nil {
				return err
			}
		}
		srvs[store] = srv
	}
	neo := neo4jFromEnv()
	auth := neo4j.NoAuth()
	if neo.user != "" {
		auth = neo4j.BasicAuth(neo.user, neo.password, "")
	}
	if neo.driver, err = neo4j.NewDriverWithContext(neo.uri, auth); err != nil {
		return err
	}
	defer neo.close()
	project := ""
	if recs, err := neo.query(ctx, "MATCH (g:GraphMeta) RETURN g.project LIMIT 1"); err == nil && len(recs) > 0 {
		project = fmt.Sprint(recs[0].Values[0])
	}

	type key struct {
		name  string
		conc  int
		store string
	}
	p50s := map[key][]float64{}
	var names []string
	for round := 1; round <= rounds; round++ {
		order := slices.Clone(stores)
		if round%2 == 0 {
			slices.Reverse(order)
		}
		fmt.Printf("round %d, order %s, load %s\n", round, strings.Join(order, " then "), loadAvg())
		for _, conc := range concs {
			for _, rc := range readCases(m) {
				if cases != nil && !slices.Contains(cases, rc.name) {
					continue
				}
				if !srvs["embedded"].hasTool(rc.tool) || !srvs["neo4j"].hasTool(rc.tool) {
					continue
				}
				if !slices.Contains(names, rc.name) {
					names = append(names, rc.name)
				}
				for _, store := range order {
					lat, err := measureReads(ctx, srvs[store], rc, b.calls, conc, b.warm, b.seed+uint64(round))
					if err != nil {
						return fmt.Errorf("%s: %w", store, err)
					}
					k := key{rc.name, conc, store}
					p50s[k] = append(p50s[k], lat.P50)
					fmt.Printf("  %-9s %-22s c=%d p50 %7.3f ms  p95 %7.3f  p99 %7.3f  %6d B\n", store, rc.name, conc, lat.P50, lat.P95, lat.P99, lat.Bytes)
				}
			}
		}
		rt, err := measureRoundTrip(ctx, neo, project, b.calls)
		if err != nil {
			return fmt.Errorf("neo4j round trip: %w", err)
		}
		k := key{roundTripCase, 1, "neo4j"}
		p50s[k] = append(p50s[k], rt.P50)
		fmt.Printf("  %-9s %-22s c=1 p50 %7.3f ms  p95 %7.3f  p99 %7.3f\n", "neo4j", "bare round trip", rt.P50, rt.P95, rt.P99)
	}

	fmt.Printf("\n%d rounds, %d timed calls per case, store and round; p50 in ms: median of the rounds (min–max)\n\n", rounds, b.calls)
	fmt.Println("| tool | c | embedded p50 | neo4j p50 | ratio (median of each) |")
	fmt.Println("|---|---|---|---|---|")
	cell := func(xs []float64) string {
		if len(xs) == 0 {
			return "–"
		}
		return fmt.Sprintf("%.3f (%.3f–%.3f)", median(xs), slices.Min(xs), slices.Max(xs))
	}
	for _, conc := range concs {
		for _, name := range names {
			e, n4 := p50s[key{name, conc, "embedded"}], p50s[key{name, conc, "neo4j"}]
			fmt.Printf("| %s | %d | %s | %s | %.1f× |\n", name, conc, cell(e), cell(n4), median(n4)/median(e))
		}
	}
	fmt.Printf("| %s | 1 | – | %s | |\n", roundTripCase, cell(p50s[key{roundTripCase, 1, "neo4j"}]))
	return nil
}

// measureRoundTrip times calls of the store's cheapest checked read from
// this process, as neo4jstore runs it: a new session per call, the
// graph_version statement as an auto-commit transaction, its records
// collected. It is the floor of any read that must ask Neo4j once (a read
// sees every write acknowledged before it), without MCP, JSON or serve.
func measureRoundTrip(ctx context.Context, s *neo4jServer, project string, calls int) (latencies, error) {
	text := cypher.MustGet("graph_version")
	params := map[string]any{"project": project}
	lat := make([]time.Duration, 0, calls)
	for range calls {
		start := time.Now()
		sess := s.driver.NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeRead, DatabaseName: s.database})
		res, err := sess.Run(ctx, text, params)
		if err == nil {
			_, err = res.Collect(ctx)
		}
		_ = sess.Close(ctx)
		if err != nil {
			return latencies{}, err
		}
		lat = append(lat, time.Since(start))
	}
	return latencies{Calls: calls, P50: percentileMS(lat, 0.50), P95: percentileMS(lat, 0.95), P99: percentileMS(lat, 0.99)}, nil
}

// loadAvg is the one-minute load average ("" when unknown).
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	return strings.Fields(string(data))[0]
}
