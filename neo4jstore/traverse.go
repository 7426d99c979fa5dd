package neo4jstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/vaultgraph/vaultgraph/core"
)

// Neighbors returns up to limit notes adjacent to id, outgoing first, each
// side by ID (see core.GraphReader). Each direction has its own fixed
// statement.
func (s *Neo4jStore) Neighbors(ctx context.Context, project, id string, dir core.Direction, limit int) ([]core.Neighbor, error) {
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
func (s *Neo4jStore) ShortestPath(ctx context.Context, project, source, target string) ([]string, error) {
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
