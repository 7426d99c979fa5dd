package neo4jstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/vaultgraph/vaultgraph/core"
)

// hubRepeatSlack is how many rows beyond the limit Hubs reads by degree.
const hubRepeatSlack = 8

// Hubs returns the top limit notes by metric. Degrees are read in order from
// their indexes; PageRank comes from the per-project cache (ranks.go).
func (s *Neo4jStore) Hubs(ctx context.Context, project string, metric core.HubMetric, limit int) ([]core.Hub, error) {
	var st statement
	switch metric {
	case core.MetricInDegree:
		st = stmtHubsInDegree
	case core.MetricOutDegree:
		st = stmtHubsOutDegree
	case core.MetricPageRank:
		return s.pageRankHubs(ctx, project, limit)
	default:
		return nil, fmt.Errorf("neo4jstore: hubs: %w", core.InvalidArgument("metric must be one of in_degree, out_degree, pagerank, got %q", metric))
	}
	hubs := []core.Hub{}
	// A degree changing while the index is read can deliver a note twice
	// (at its old and its new place), and a repeat would take one of the
	// limit's rows: read a few more and cut after dropping repeats (the
	// contract suite's concurrency case once got 2 hubs of 3 without this).
	fetch := limitParam(limit)
	if limit > 0 {
		fetch += hubRepeatSlack
	}
	err := s.read(ctx, "hubs", func(t txn) error {
		records, err := t.collect(st, map[string]any{"project": project, "limit": fetch})
		if err != nil {
			return err
		}
		hubs = hubs[:0]
		seen := make(map[string]bool, len(records))
		for _, r := range records {
			id := str(r.Values[0])
			if !seen[id] {
				seen[id] = true
				hubs = append(hubs, core.Hub{ID: id, Title: str(r.Values[1]), Score: float64(num(r.Values[2]))})
			}
		}
		// The index delivers the order, but a degree changing while it is
		// read could put an entry out of place (or twice); restore the
		// contract's order on the few rows returned.
		slices.SortFunc(hubs, core.CompareHubs)
		if limit > 0 && len(hubs) > limit {
			hubs = hubs[:limit]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return hubs, nil
}
