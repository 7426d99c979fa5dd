package memstore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

func record(id string) memstore.ProjectRecord {
	at := time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)
	return memstore.ProjectRecord{ID: id, Name: "Vault " + id, Slug: "vault-" + id, Description: "about " + id, CreatedAt: at, UpdatedAt: at.Add(time.Hour)}
}

func TestProjectRecordsRoundTripInMemory(t *testing.T) {
	testProjectRecords(t, memstore.New())
}

func TestProjectRecordsRoundTripOnFile(t *testing.T) {
	s, err := memstore.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close(t.Context()) })
	testProjectRecords(t, s)
}

func testProjectRecords(t *testing.T, s *memstore.Store) {
	ctx := t.Context()
	recs, err := s.Projects(ctx)
	require.NoError(t, err)
	assert.Empty(t, recs)

	require.NoError(t, s.PutProject(ctx, record("b")))
	require.NoError(t, s.PutProject(ctx, record("a")))
	changed := record("b")
	changed.Name = "renamed"
	require.NoError(t, s.PutProject(ctx, changed))

	recs, err = s.Projects(ctx)
	require.NoError(t, err)
	assert.Equal(t, []memstore.ProjectRecord{record("a"), changed}, recs)
	got, err := s.Project(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, record("a"), *got)
	_, err = s.Project(ctx, "missing")
	assert.ErrorIs(t, err, core.ErrNotFound)
	assert.ErrorIs(t, s.PutProject(ctx, memstore.ProjectRecord{Name: "no id"}), core.ErrInvalidArgument)
}

func TestProjectRecordsSurviveReopening(t *testing.T) {
	dir := t.TempDir()
	s, err := memstore.Open(dir)
	require.NoError(t, err)
	require.NoError(t, s.PutProject(t.Context(), record("a")))
	require.NoError(t, s.Close(t.Context()))

	s, err = memstore.Open(dir)
	require.NoError(t, err)
	defer s.Close(t.Context())
	recs, err := s.Projects(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []memstore.ProjectRecord{record("a")}, recs)
}
