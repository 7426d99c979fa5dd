package neo4jstore

import (
	"context"
	"sync"

	"github.com/vaultgraph/vaultgraph/core"
)

// rankCache keeps, per project, every note ranked by PageRank together with
// the project's change counter (GraphMeta.version) it was computed at. Any
// write, by this process or another, bumps the counter in its own
// transaction, so a cached ranking is used only while the counter still
// matches: one small indexed read per call instead of reading the graph.
type rankCache struct {
	mu      sync.Mutex
	entries map[string]*rankEntry
}

type rankEntry struct {
	mu      sync.Mutex // held while checking or computing, so one caller computes
	valid   bool
	version int64
	hubs    []core.Hub // every note, in core.CompareHubs order, with titles
}

func newRankCache() *rankCache {
	return &rankCache{entries: map[string]*rankEntry{}}
}

func (c *rankCache) entry(project string) *rankEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[project]
	if !ok {
		e = &rankEntry{}
		c.entries[project] = e
	}
	return e
}

// forget drops a project's ranking after this process wrote to it; the
// counter check would reject it anyway, this only frees the memory early.
func (c *rankCache) forget(project string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, project)
}

// pageRankHubs returns the top limit notes by PageRank, computed with
// core.PageRankScores over the whole edge list (read in one query) when the
// cached ranking is missing or stale.
func (s *Neo4jStore) pageRankHubs(ctx context.Context, project string, limit int) ([]core.Hub, error) {
	e := s.ranks.entry(project)
	e.mu.Lock()
	defer e.mu.Unlock()

	var version int64
	err := s.read(ctx, "pagerank version", func(t txn) error {
		r, err := t.single(stmtGraphVersion, map[string]any{"project": project})
		if err != nil {
			return err
		}
		version = num(r.Values[0])
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !e.valid || e.version != version {
		if err := s.computeRanks(ctx, project, e); err != nil {
			return nil, err
		}
	}
	n := len(e.hubs)
	if limit > 0 && limit < n {
		n = limit
	}
	out := make([]core.Hub, n)
	copy(out, e.hubs)
	return out, nil
}

// computeRanks reads the counter and then the graph in one transaction.
// The counter is read first: a write committing in between makes the
// ranking newer than its label, which only costs a recomputation later,
// whereas the other order could label a stale ranking as current.
func (s *Neo4jStore) computeRanks(ctx context.Context, project string, e *rankEntry) error {
	var (
		version int64
		ids     []string
		titles  map[string]string
		edges   [][2]string
	)
	err := s.read(ctx, "pagerank graph", func(t txn) error {
		r, err := t.single(stmtGraphVersion, map[string]any{"project": project})
		if err != nil {
			return err
		}
		version = num(r.Values[0])
		records, err := t.collect(stmtGraphAdjacency, map[string]any{"project": project})
		if err != nil {
			return err
		}
		ids = make([]string, 0, len(records))
		titles = make(map[string]string, len(records))
		edges = edges[:0]
		for _, r := range records {
			id := str(r.Values[0])
			ids = append(ids, id)
			titles[id] = str(r.Values[1])
			for _, target := range strs(r.Values[2]) {
				edges = append(edges, [2]string{id, target})
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	hubs := core.RankHubs(core.PageRankScores(ids, edges), 0)
	for i := range hubs {
		hubs[i].Title = titles[hubs[i].ID]
	}
	e.valid, e.version, e.hubs = true, version, hubs
	return nil
}
