package neo4jstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
)

// calls exercises every store method once; each returns its error.
func calls(s *Neo4jStore, project string) map[string]func(ctx context.Context) error {
	note := core.Note{ID: "c.md", Title: "C", Keys: []string{"c"}, Links: []core.Link{{Raw: "[[a]]", Key: "a", Target: "a.md"}}}
	return map[string]func(ctx context.Context) error{
		"GetNote":       func(ctx context.Context) error { _, err := s.GetNote(ctx, project, "a.md"); return err },
		"GetNotes":      func(ctx context.Context) error { _, err := s.GetNotes(ctx, project, []string{"a.md"}); return err },
		"ResolveTitles": func(ctx context.Context) error { _, err := s.ResolveTitles(ctx, project, []string{"a.md"}); return err },
		"Neighbors": func(ctx context.Context) error {
			_, err := s.Neighbors(ctx, project, "a.md", core.DirectionBoth, 10)
			return err
		},
		"Degree":       func(ctx context.Context) error { _, err := s.Degree(ctx, project, "a.md"); return err },
		"ShortestPath": func(ctx context.Context) error { _, err := s.ShortestPath(ctx, project, "a.md", "b.md"); return err },
		"Hubs":         func(ctx context.Context) error { _, err := s.Hubs(ctx, project, core.MetricInDegree, 5); return err },
		"PageRank":     func(ctx context.Context) error { _, err := s.Hubs(ctx, project, core.MetricPageRank, 5); return err },
		"NotesByTags": func(ctx context.Context) error {
			_, err := s.NotesByTags(ctx, project, []string{"x"}, core.TagModeAny, 5)
			return err
		},
		"RandomNote": func(ctx context.Context) error {
			_, err := s.RandomNote(ctx, project, nil, func(int) int { return 0 })
			return err
		},
		"CountNotes": func(ctx context.Context) error { _, err := s.CountNotes(ctx, project); return err },
		"NoteHashes": func(ctx context.Context) error { _, err := s.NoteHashes(ctx, project); return err },
		"UnresolvedLinkers": func(ctx context.Context) error {
			_, err := s.UnresolvedLinkers(ctx, project, []string{"x"})
			return err
		},
		"UpsertNotes": func(ctx context.Context) error { return s.UpsertNotes(ctx, project, []core.Note{note}) },
		"DeleteNotes": func(ctx context.Context) error { _, err := s.DeleteNotes(ctx, project, []string{"zz.md"}); return err },
		"Status":      func(ctx context.Context) error { _, err := s.Status(ctx); return err },
	}
}

// Stopping Neo4j under a running Store makes every call fail with a
// provider error (no panic, no hang past the retry budget); starting it
// again makes the same Store work without being reopened. On a Neo4j of
// its own (it stops it), beside the other tests.
func TestStoreSurvivesNeo4jRestart(t *testing.T) {
	t.Parallel()
	srv := neo4jtest.StartLocal(t, neo4jtest.LocalOptions{})
	onSrv := func(c *Config) { c.URI, c.User, c.Password, c.Database = srv.URI, srv.User, srv.Password, srv.Database }
	project := fmt.Sprintf("fault-%d", rand.Uint64())
	ctx := t.Context()
	a := core.Note{ID: "a.md", Title: "A", Keys: []string{"a"}, Links: []core.Link{{Raw: "[[b]]", Key: "b", Target: "b.md"}}}
	b := core.Note{ID: "b.md", Title: "B", Keys: []string{"b"}}
	// The server is new and cold: its first write took 20 s and more at
	// load 33, so a store with the suite's generous timeout writes first.
	require.NoError(t, openStoreWith(t, onSrv).UpsertNotes(ctx, project, []core.Note{a, b}))
	s := openStoreWith(t, func(c *Config) {
		onSrv(c)
		c.MaxRetryTime = time.Second
		c.Timeout = 20 * time.Second
	})
	_, err := s.Hubs(ctx, project, core.MetricPageRank, 5) // warm the cache: it must not hide the outage
	require.NoError(t, err)

	require.NoError(t, srv.Stop(t))
	// All at once: each waits out the retry budget before it fails.
	type outcome struct {
		err  error
		took time.Duration
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	outcomes := map[string]outcome{}
	for name, call := range calls(s, project) {
		wg.Go(func() {
			start := time.Now()
			err := call(ctx)
			mu.Lock()
			defer mu.Unlock()
			outcomes[name] = outcome{err, time.Since(start)}
		})
	}
	wg.Wait()
	for name, o := range outcomes {
		require.Error(t, o.err, "%s while Neo4j is down", name)
		require.True(t, core.IsProviderError(o.err), "%s: want a provider error, got %v", name, o.err)
		require.Less(t, o.took, 15*time.Second, "%s took too long to fail", name)
	}

	require.NoError(t, srv.Start(t))
	// Each call is waited for until it succeeds (the event), bounded
	// generously: a restarted Neo4j on a loaded machine ran a first write
	// past the store's 20 s timeout, which is slowness, not the failure
	// this test looks for (a store that never recovers).
	deadline := time.Now().Add(5 * time.Minute)
	recovered := func(name string, call func(context.Context) error) {
		for {
			err := call(ctx)
			if err == nil {
				return
			}
			require.True(t, time.Now().Before(deadline), "%s: store did not recover after restart: %v", name, err)
			time.Sleep(200 * time.Millisecond)
		}
	}
	recovered("GetNote", func(ctx context.Context) error { _, err := s.GetNote(ctx, project, "a.md"); return err })
	for name, call := range calls(s, project) {
		recovered(name+" after restart", call)
	}
	d, err := s.Degree(ctx, project, "a.md")
	require.NoError(t, err)
	require.Equal(t, core.Degree{In: 1, Out: 1}, d, "c.md (written after the restart) links to a.md")
}

func TestCancelledContextFailsWithItsCause(t *testing.T) {
	s := openStore(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for name, call := range calls(s, "cancelled") {
		err := call(ctx)
		require.Error(t, err, name)
		require.True(t, errors.Is(err, context.Canceled), "%s: %v does not wrap context.Canceled", name, err)
	}
}
