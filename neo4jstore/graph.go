package neo4jstore

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/vaultgraph/vaultgraph/core"
)

// Neighbors returns up to limit notes adjacent to id, outgoing first, each
// side by ID (see core.GraphReader). Each direction has its own fixed
// statement.
func (s *Store) Neighbors(ctx context.Context, project, id string, dir core.Direction, limit int) ([]core.Neighbor, error) {
	var st statement
	switch dir {
	case core.DirectionOut:
		st = stmtNeighborsOut
	case core.DirectionIn:
		st = stmtNeighborsIn
	case core.DirectionBoth:
		st = stmtNeighborsBoth
	default:
		return nil, fmt.Errorf("neo4jstore: neighbours of %s: %w", id, core.InvalidArgument("direction must be one of in, out, both, got %q", dir))
	}
	out := []core.Neighbor{}
	err := s.read(ctx, "neighbours", func(t txn) error {
		records, err := t.collect(st, map[string]any{"project": project, "id": id, "limit": limitParam(limit)})
		if err != nil {
			return err
		}
		out = out[:0]
		seen := make(map[string]bool, len(records))
		for _, r := range records {
			n, err := decodeNote(project, r.Values[0], r.Values[1], r.Values[2])
			if errors.Is(err, errVanished) {
				continue
			}
			if err != nil {
				return err
			}
			// A link created between the statement's two halves could list
			// a note on both sides; the first (outgoing) listing stands.
			if seen[n.ID] {
				continue
			}
			seen[n.ID] = true
			out = append(out, core.Neighbor{Note: n, Direction: core.Direction(str(r.Values[3]))})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ShortestPath returns the lexicographically smallest of the shortest
// paths from source to target (see core.GraphReader and path_shortest).
func (s *Store) ShortestPath(ctx context.Context, project, source, target string) ([]string, error) {
	if source == target {
		titles, err := s.ResolveTitles(ctx, project, []string{source})
		if err != nil || len(titles) == 0 {
			return nil, err
		}
		return []string{source}, nil
	}
	var path []string
	err := s.read(ctx, "shortest path", func(t txn) error {
		r, err := t.single(stmtPathShortest, map[string]any{"project": project, "source": source, "target": target})
		if err != nil || r == nil {
			path = nil
			return err
		}
		path = strs(r.Values[0])
		return nil
	})
	if err != nil {
		return nil, err
	}
	return path, nil
}

// Hubs returns the top limit notes by metric. Degrees are read in order from
// their indexes; PageRank comes from the per-project cache (ranks.go).
func (s *Store) Hubs(ctx context.Context, project string, metric core.HubMetric, limit int) ([]core.Hub, error) {
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
	err := s.read(ctx, "hubs", func(t txn) error {
		records, err := t.collect(st, map[string]any{"project": project, "limit": limitParam(limit)})
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
		return nil
	})
	if err != nil {
		return nil, err
	}
	return hubs, nil
}

// NotesByTags returns up to limit notes carrying any or all of tags, by ID.
func (s *Store) NotesByTags(ctx context.Context, project string, tags []string, mode core.TagMode, limit int) ([]core.Note, error) {
	var st statement
	switch mode {
	case core.TagModeAny:
		st = stmtTagsAny
	case core.TagModeAll:
		st = stmtTagsAll
	default:
		return nil, fmt.Errorf("neo4jstore: notes by tags: %w", core.InvalidArgument("mode must be one of any, all, got %q", mode))
	}
	norm := normalizeTags(tags)
	if len(norm) == 0 {
		return []core.Note{}, nil
	}
	var notes []core.Note
	err := s.read(ctx, "notes by tags", func(t txn) error {
		records, err := t.collect(st, map[string]any{"project": project, "tags": norm, "limit": limitParam(limit)})
		if err != nil {
			return err
		}
		notes, err = decodeNotes(project, records)
		return err
	})
	if err != nil {
		return nil, err
	}
	return notes, nil
}

// RandomNote counts the candidates, asks pick for an index and reads the
// candidate at that index in ID order from the (project, id) index. The
// count and the read are separate transactions so that pick runs exactly
// once even when a transaction is retried; a note deleted in between makes
// the answer (nil, nil), as if the pick had come a moment later.
func (s *Store) RandomNote(ctx context.Context, project string, tags []string, pick func(n int) int) (*core.Note, error) {
	norm := normalizeTags(tags)
	count, nth := stmtReadCount, stmtRandomNth
	params := map[string]any{"project": project}
	if len(norm) > 0 {
		count, nth = stmtRandomCountTagged, stmtRandomNthTagged
		params["tags"] = norm
	}
	var n int64
	err := s.read(ctx, "random note", func(t txn) error {
		r, err := t.single(count, params)
		if err != nil {
			return err
		}
		n = num(r.Values[0])
		return nil
	})
	if err != nil || n == 0 {
		return nil, err
	}
	k := pick(int(n))
	if k < 0 || int64(k) >= n {
		return nil, fmt.Errorf("neo4jstore: random note: pick(%d) returned %d, out of range", n, k)
	}
	var note *core.Note
	err = s.read(ctx, "random note", func(t txn) error {
		r, err := t.single(nth, with(params, "skip", int64(k)))
		if err != nil || r == nil {
			note = nil
			return err
		}
		got, err := decodeNote(project, r.Values[0], r.Values[1], r.Values[2])
		if errors.Is(err, errVanished) {
			note = nil
			return nil
		}
		note = &got
		return err
	})
	if err != nil {
		return nil, err
	}
	return note, nil
}
