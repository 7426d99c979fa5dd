package benchgen_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vaultgraph/vaultgraph/benchgen"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/vault"
)

// TestVaultParsingFindsTheIntendedGraph syncs a generated vault with the
// real parser and mirror into the embedded store and compares what they
// found with what the generator meant to write.
func TestVaultParsingFindsTheIntendedGraph(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "vault")
	m, err := benchgen.Generate(dir, benchgen.Config{Notes: 1500, Seed: 11})
	require.NoError(t, err)

	store, err := memstore.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close(t.Context()) })
	mirror, err := vault.NewMirror(vault.Config{Root: dir, Project: "p", Store: store, NoProgress: true})
	require.NoError(t, err)
	stats, err := mirror.Sync(t.Context())
	require.NoError(t, err)

	assert.Equal(t, len(m.Notes), stats.Notes)
	assert.InEpsilon(t, m.Links, stats.Links, 0.01, "links: parser %d, generator %d", stats.Links, m.Links)
	assert.InEpsilon(t, m.Broken, stats.Unresolved, 0.02, "broken: parser %d, generator %d", stats.Unresolved, m.Broken)

	// The hubs the generator built are the store's in-degree hubs.
	want := m.Hubs(3)
	got, err := store.Hubs(t.Context(), "p", core.MetricInDegree, 3)
	require.NoError(t, err)
	require.Len(t, got, 3)
	for i := range want {
		assert.Equal(t, want[i].ID(), got[i].ID)
		assert.InEpsilon(t, want[i].InDegree, got[i].Score, 0.02)
	}

	// Every note is in the store under the ID the manifest gives.
	n, err := store.CountNotes(t.Context(), "p")
	require.NoError(t, err)
	assert.Equal(t, len(m.Notes), n)
	for _, note := range m.Notes[:50] {
		got, err := store.GetNote(t.Context(), "p", note.ID())
		require.NoError(t, err, note.Path)
		assert.ElementsMatch(t, note.Tags, got.Tags, note.Path)
	}
}
