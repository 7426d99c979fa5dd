package neo4jstore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// The warm-up removes what it wrote in its own project: no note, no change.
func TestWarmWritesLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	ctx := t.Context()
	like := "3f2b6c1e-9a4d-4e8f-b7a0-5c1d2e3f4a5b"
	require.NoError(t, s.WarmWrites(ctx, like))
	warm := WarmProject(like)
	assert.Len(t, warm, len(like), "the warm-up's project key is as long as the real one (plans are cached by parameter size)")
	n, err := s.CountNotes(ctx, warm)
	require.NoError(t, err)
	assert.Zero(t, n, "notes left in the warm-up's project")
	changes, err := s.Changes(ctx, warm, core.ChangeQuery{Limit: 10})
	require.NoError(t, err)
	assert.Empty(t, changes, "changes left in the warm-up's project")
	n, err = s.CountNotes(ctx, like)
	require.NoError(t, err)
	assert.Zero(t, n, "notes written in the project it is named after")
}
