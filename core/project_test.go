package core_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// projectStore is a ProjectStore in a map that can be made to fail.
type projectStore struct {
	recs map[string]core.Project
	down bool
	puts int
}

func (s *projectStore) SaveProject(_ context.Context, p core.Project) error {
	if s.down {
		return core.NewProviderError("save", errors.New("down"))
	}
	s.puts++
	s.recs[p.ID] = p
	return nil
}

func (s *projectStore) ListProjects(context.Context) ([]core.Project, error) {
	if s.down {
		return nil, core.NewProviderError("list", errors.New("down"))
	}
	var out []core.Project
	for _, p := range s.recs {
		out = append(out, p)
	}
	return out, nil
}

func TestProjectCatalogDatesAndOrder(t *testing.T) {
	ctx := context.Background()
	store := &projectStore{recs: map[string]core.Project{}, down: true}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	configured := []core.Project{
		{Key: "b", ID: core.ProjectID("b"), Name: "beta", Slug: "b"},
		{Key: "a", ID: core.ProjectID("a"), Name: "Alpha", Slug: "a"},
		{Key: "c", ID: core.ProjectID("c"), Name: "alpha", Slug: "c"},
	}
	cat := core.NewProjectCatalog(store, configured).WithClock(clock)
	require.Error(t, cat.Sync(ctx), "a store that is down fails the sync")
	_, err := cat.List(ctx)
	require.Error(t, err)
	p, ok := cat.Lookup(configured[0].ID)
	assert.True(t, ok, "lookups need no store")
	assert.Equal(t, "b", p.Key)

	store.down = false
	list, err := cat.List(ctx)
	require.NoError(t, err, "List syncs once the store is back")
	require.Len(t, list, 3)
	assert.ElementsMatch(t, []string{"Alpha", "alpha"}, []string{list[0].Name, list[1].Name}, "name ASC, case-insensitively")
	assert.Less(t, list[0].ID, list[1].ID, "names equal case-insensitively go by id")
	assert.Equal(t, "beta", list[2].Name)
	for _, p := range list {
		assert.Equal(t, now, p.CreatedAt)
		assert.Equal(t, now, p.UpdatedAt)
	}
	assert.Equal(t, 3, store.puts)

	// A restart with one project renamed: only it is rewritten, and only
	// its updatedAt moves.
	now = now.Add(time.Hour)
	configured[0].Name = "Beta renamed"
	cat = core.NewProjectCatalog(store, configured).WithClock(clock)
	require.NoError(t, cat.Sync(ctx))
	assert.Equal(t, 4, store.puts)
	list, err = cat.List(ctx)
	require.NoError(t, err)
	renamed := list[2]
	assert.Equal(t, "Beta renamed", renamed.Name)
	assert.Equal(t, now.Add(-time.Hour), renamed.CreatedAt)
	assert.Equal(t, now, renamed.UpdatedAt)
	assert.Equal(t, now.Add(-time.Hour), list[0].UpdatedAt)

	_, ok = cat.Lookup(core.ProjectID("zz"))
	assert.False(t, ok)
}

func TestUUIDs(t *testing.T) {
	id := core.NameUUID("x")
	assert.Equal(t, id, core.NameUUID("x"))
	assert.NotEqual(t, id, core.NameUUID("y"))
	got, ok := core.ParseUUID(id)
	assert.True(t, ok)
	assert.Equal(t, id, got)
	assert.Equal(t, byte('5'), id[14], "version 5")
	assert.Contains(t, "89ab", string(id[19]), "RFC 4122 variant")
	upper, ok := core.ParseUUID("0B8F2B9A-2D1E-4C1B-9F00-AAAAAAAAAAAA")
	assert.True(t, ok)
	assert.Equal(t, "0b8f2b9a-2d1e-4c1b-9f00-aaaaaaaaaaaa", upper)
	for _, bad := range []string{"", "0b8f2b9a2d1e4c1b9f00aaaaaaaaaaaa", "0b8f2b9a-2d1e-4c1b-9f00-aaaaaaaaaaag", "{0b8f2b9a-2d1e-4c1b-9f00-aaaaaaaaaaaa}"} {
		_, ok := core.ParseUUID(bad)
		assert.False(t, ok, bad)
	}
}
