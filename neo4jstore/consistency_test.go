package neo4jstore

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
)

// Reads go to the leader on routing URIs only (consistency.go).
func TestReadsGoToTheLeaderOnRoutingURIs(t *testing.T) {
	t.Parallel()
	for uri, want := range map[string]neo4j.AccessMode{
		"neo4j://db:7687":      neo4j.AccessModeWrite,
		"neo4j+s://x.io":       neo4j.AccessModeWrite,
		"neo4j+ssc://x.io":     neo4j.AccessModeWrite,
		"bolt://127.0.0.1:1":   neo4j.AccessModeRead,
		"bolt+s://db.io:7687":  neo4j.AccessModeRead,
		"bolt+ssc://db.io:123": neo4j.AccessModeRead,
	} {
		s := &Neo4jStore{cfg: Config{URI: uri}}
		assert.Equal(t, want, s.sessionMode(neo4j.AccessModeRead), uri)
		assert.Equal(t, neo4j.AccessModeWrite, s.sessionMode(neo4j.AccessModeWrite), uri)
	}
}

// Two replicas on the routing scheme (neo4j://, as on a cluster or Aura;
// here against the single test server): every read that starts after the
// other replica's write was acknowledged sees it, in every kind of read,
// including the catalog's picks and titles.
func TestReplicasSeeEachOthersWritesOnRoutingURI(t *testing.T) {
	t.Parallel()
	srv := neo4jtest.Get(t)
	if !strings.HasPrefix(srv.URI, "bolt://") {
		t.Skipf("server URI %s is not bolt://", srv.URI)
	}
	routed := func(c *Config) { c.URI = "neo4j://" + strings.TrimPrefix(srv.URI, "bolt://") }
	a, b := openStoreWith(t, routed), openStoreWith(t, routed)
	ctx := t.Context()
	project := fmt.Sprintf("causal-%d", rand.Uint64())
	notes := graphSpec{notes: 50, seed: 3, avgLinks: 2, tags: 3, content: 10}.generate()
	require.NoError(t, a.UpsertNotes(ctx, project, notes))
	waitCatalog(t, b, project)

	for i := range 20 {
		writer, reader := a, b
		if i%2 == 1 {
			writer, reader = b, a
		}
		n := notes[i]
		n.Title = fmt.Sprintf("Round %d", i)
		n.Tags = []string{fmt.Sprintf("round-%d", i)}
		require.NoError(t, writer.UpsertNotes(ctx, project, []core.Note{n}))

		got, err := reader.GetNote(ctx, project, n.ID)
		require.NoError(t, err)
		assert.Equal(t, n.Title, got.Title, "round %d: get", i)
		tagged, err := reader.NotesByTags(ctx, project, n.Tags, core.TagModeAny, 10)
		require.NoError(t, err)
		assert.Equal(t, []string{n.ID}, noteIDsOf(tagged), "round %d: by tag", i)
		picked, err := reader.RandomNote(ctx, project, n.Tags, func(int) int { return 0 })
		require.NoError(t, err)
		if assert.NotNil(t, picked, "round %d: random", i) {
			assert.Equal(t, n.ID, picked.ID)
		}
		titles, err := reader.ResolveTitles(ctx, project, []string{n.ID})
		require.NoError(t, err)
		assert.Equal(t, n.Title, titles[n.ID], "round %d: titles", i)
	}
}
