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

// maxTiedPaths is how many shortest paths ShortestPath compares in Go;
// with more it walks (path_walk). On the 10k benchmark vault random pairs
// had 1 to 6 shortest paths; path_walk costs 10 to 50 times the db hits of
// path_shortest on them, and path_shortest grows with the number of tied
// paths, which has no bound.
const maxTiedPaths = 64

// ShortestPath returns the lexicographically smallest of the shortest
// paths from source to target (see core.GraphReader): from the catalog's
// links when they are current (catalog.shortestPath), else path_shortest
// reads up to maxTiedPaths+1 of them; when there are more, path_walk finds
// the smallest without enumerating them.
func (s *Neo4jStore) ShortestPath(ctx context.Context, project, source, target string) ([]string, error) {
	if source == target {
		titles, err := s.ResolveTitles(ctx, project, []string{source})
		if err != nil || len(titles) == 0 {
			return nil, err
		}
		return []string{source}, nil
	}
	// With a catalog whose links are complete, the search runs in process
	// if the catalog is as current as the database (one round trip for
	// the counter); a catalog behind it catches up in the background.
	if cat := s.catalog(project); cat != nil {
		if l := cat.pathLinks(); l != nil {
			version, err := s.graphVersion(ctx, project)
			if err != nil {
				return nil, err
			}
			if version == cat.version {
				return cat.shortestPath(l, source, target), nil
			}
			s.staleCatalog(project, cat)
		}
	}
	p := map[string]any{"project": project, "source": source, "target": target, "limit": int64(maxTiedPaths + 1)}
	var path []string
	err := s.read(ctx, "shortest path", func(t txn) error {
		path = nil
		r, err := t.single(stmtPathShortest, p)
		if err != nil || r == nil {
			return err
		}
		paths, _ := r.Values[0].([]any)
		if len(paths) <= maxTiedPaths {
			for _, v := range paths {
				if ids := strs(v); path == nil || slices.Compare(ids, path) < 0 {
					path = ids
				}
			}
			return nil
		}
		if r, err = t.single(stmtPathWalk, p); err != nil || r == nil {
			return err
		}
		path = strs(r.Values[0])
		if slices.Contains(path, "") {
			return errTorn // a link the walk relied on went away meanwhile
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return path, nil
}

// graphVersion reads the project's change counter: one round trip, which
// a read answered from the catalog makes to know the catalog is current.
func (s *Neo4jStore) graphVersion(ctx context.Context, project string) (int64, error) {
	var version int64
	err := s.read(ctx, "change counter", func(t txn) error {
		r, err := t.single(stmtGraphVersion, map[string]any{"project": project})
		if err == nil && r != nil {
			version = num(r.Values[0])
		}
		return err
	})
	return version, err
}
