package neo4jstore

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
)

// Without Lazy, a server nobody answers at is an error of Open; with it,
// Open succeeds and every call fails fast with a provider error.
func TestLazyOpenOfAnUnreachableServer(t *testing.T) {
	ctx := t.Context()
	cfg := Config{URI: "bolt://127.0.0.1:1", ConnectTimeout: time.Second, Timeout: 2 * time.Second, MaxRetryTime: time.Second}
	_, err := Open(ctx, cfg)
	require.True(t, core.IsProviderError(err), "eager open: %v", err)

	cfg.Lazy = true
	s, err := Open(ctx, cfg)
	require.NoError(t, err)
	defer func() { _ = s.Close(context.Background()) }()
	for range 3 {
		start := time.Now()
		_, err := s.CountNotes(ctx, "p")
		require.True(t, core.IsProviderError(err), "while unreachable: %v", err)
		require.Less(t, time.Since(start), 5*time.Second)
	}
}

// A Lazy store opened while Neo4j is down connects, migrates and answers
// once the server is back, without being reopened.
func TestLazyStoreConnectsWhenNeo4jComesUp(t *testing.T) {
	t.Parallel()
	srv := neo4jtest.StartLocal(t, neo4jtest.LocalOptions{}) // its own: it stops it
	require.NoError(t, srv.Stop(t))
	cfg := configFor(srv)
	cfg.Lazy, cfg.ConnectTimeout, cfg.MaxRetryTime = true, time.Second, time.Second
	s, err := Open(t.Context(), cfg)
	require.NoError(t, err)
	defer func() { _ = s.Close(context.Background()) }()
	_, err = s.CountNotes(t.Context(), "lazy")
	require.True(t, core.IsProviderError(err), "while down: %v", err)

	require.NoError(t, srv.Start(t))
	deadline := time.Now().Add(time.Minute)
	for {
		err = s.UpsertNotes(t.Context(), "lazy", []core.Note{{ID: "a.md", Title: "A", Path: "a.md", Hash: "h", Keys: []string{"a"}}})
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	require.NoError(t, err, "once Neo4j is back")
	n, err := s.CountNotes(t.Context(), "lazy")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	st, err := s.Status(t.Context())
	require.NoError(t, err)
	require.Len(t, st.Migrations, len(migrations), "the schema was migrated on first contact")
	_, err = s.DeleteNotes(t.Context(), "lazy", []string{"a.md"})
	require.NoError(t, err)
}
