package neo4jstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
)

func TestOpenMigratesOnceAndStatusReportsTheSchema(t *testing.T) {
	first := openStore(t)
	before, err := first.Status(t.Context())
	require.NoError(t, err)
	second := openStore(t) // a second process starting: nothing to apply
	after, err := second.Status(t.Context())
	require.NoError(t, err)
	require.Equal(t, before.Migrations, after.Migrations, "a second Open must not re-apply migrations")

	require.Len(t, after.Migrations, len(migrations))
	for i, m := range migrations {
		assert.Equal(t, m.version, after.Migrations[i].Version)
		assert.Equal(t, m.name, after.Migrations[i].Name)
		assert.False(t, after.Migrations[i].AppliedAt.IsZero())
	}
	assert.True(t, strings.HasPrefix(after.ServerVersion, "5."), "server version %q", after.ServerVersion)
	assert.NotEmpty(t, after.Edition)

	byName := map[string]Index{}
	for _, idx := range after.Indexes {
		byName[idx.Name] = idx
	}
	for name, want := range map[string][2]string{
		"note_key":             {"RANGE", "Note"},
		"unresolved_key":       {"RANGE", "Unresolved"},
		"graph_meta_key":       {"RANGE", "GraphMeta"},
		"schema_migration_key": {"RANGE", "SchemaMigration"},
		"note_in_degree":       {"RANGE", "Note"},
		"note_out_degree":      {"RANGE", "Note"},
		"note_fulltext":        {"FULLTEXT", "Note"},
		"note_embedding":       {"VECTOR", "Note"},
	} {
		idx, ok := byName[name]
		if !assert.True(t, ok, "index %s missing", name) {
			continue
		}
		assert.Equal(t, want[0], idx.Type, name)
		assert.Equal(t, []string{want[1]}, idx.LabelsOrTypes, name)
		assert.Equal(t, "ONLINE", idx.State, name)
	}
	vec := byName["note_embedding"]
	// Migration 4 creates it with Config.VectorDimensions; SetNoteVectors
	// then adapts it to the model's vectors, which earlier tests on this
	// database may have written (TestVectorIndexFollowsTheModelsDimension).
	assert.Positive(t, num(vec.Options["vector.dimensions"]))
	assert.Equal(t, "COSINE", vec.Options["vector.similarity_function"])
	assert.Equal(t, []string{"project", "inDegree"}, byName["note_in_degree"].Properties)
}

// A store opened with ReadOnlySchema (vaultgraph status, doctor) reports a
// migration the database has not run as pending, and runs nothing.
func TestReadOnlySchemaReportsPendingMigrationsAndWritesNothing(t *testing.T) {
	openStore(t) // migrated
	last := migrations[len(migrations)-1]
	drop := func() {
		driver := openStore(t).driver()
		_, err := neo4j.ExecuteQuery(t.Context(), driver, "MATCH (m:SchemaMigration {version: $v}) DELETE m",
			map[string]any{"v": last.version}, neo4j.EagerResultTransformer)
		require.NoError(t, err)
	}
	drop()
	ro := openStoreWith(t, func(c *Config) { c.ReadOnlySchema = true })
	st, err := ro.Status(t.Context())
	require.NoError(t, err)
	require.Len(t, st.Pending, 1)
	assert.Equal(t, last.version, st.Pending[0].Version)
	again, err := ro.Status(t.Context())
	require.NoError(t, err)
	require.Len(t, again.Pending, 1, "status applied nothing")
	migrated := openStore(t) // a normal start applies it
	st, err = migrated.Status(t.Context())
	require.NoError(t, err)
	assert.Empty(t, st.Pending)
}

func TestConfigProblemsAreNamed(t *testing.T) {
	ctx := t.Context()
	_, err := Open(ctx, Config{})
	require.ErrorContains(t, err, "URI is empty")
	_, err = Open(ctx, Config{URI: "http://localhost:7474", MaxConnections: -1, VectorDimensions: 5000})
	require.ErrorContains(t, err, "must start with neo4j://")
	require.ErrorContains(t, err, "MaxConnections")
	require.ErrorContains(t, err, "VectorDimensions")
}

func TestUnreachableServerIsAProviderError(t *testing.T) {
	_, err := Open(t.Context(), Config{URI: "bolt://127.0.0.1:1", MaxRetryTime: time.Millisecond, ConnectTimeout: time.Second})
	require.Error(t, err)
	require.True(t, core.IsProviderError(err), "got %v", err)
}

// A uniqueness violation reported by Neo4j (here provoked directly, since
// the store's own writes MERGE and never violate) becomes core.ErrExists;
// other database errors are provider errors.
func TestConstraintViolationIsErrExists(t *testing.T) {
	s := openStore(t)
	srv := neo4jtest.Get(t)
	d := srv.Driver(t)
	project := fmt.Sprintf("constraint-%d", rand.Uint64())
	create := func() error {
		var opts []neo4j.ExecuteQueryConfigurationOption
		if srv.Database != "" {
			opts = append(opts, neo4j.ExecuteQueryWithDatabase(srv.Database))
		}
		_, err := neo4j.ExecuteQuery(t.Context(), d, "CREATE (:Note {project: $p, id: 'x.md'})",
			map[string]any{"p": project}, neo4j.EagerResultTransformer, opts...)
		return err
	}
	require.NoError(t, create())
	violation := create()
	require.Error(t, violation)
	err := s.translate("test", violation)
	require.ErrorIs(t, err, core.ErrExists)
	require.False(t, core.IsProviderError(err))

	other := s.translate("test", &neo4j.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError", Msg: "bad"})
	require.True(t, core.IsProviderError(other))
	_, err = s.DeleteNotes(context.Background(), project, []string{"x.md"})
	require.NoError(t, err)
}

// PageRank is stored per project, and a write by another process (another
// Store, another driver) shows in the answers once recomputed; an answer
// before that says it lags (ranks.go).
func TestPageRankFollowsWritesOfAnotherProcess(t *testing.T) {
	reader, writer := openStore(t), openStore(t)
	ctx := t.Context()
	project := fmt.Sprintf("pagerank-cache-%d", rand.Uint64())
	link := func(from, to string) core.Note {
		return core.Note{ID: from, Title: from, Keys: []string{strings.TrimSuffix(from, ".md")},
			Links: []core.Link{{Raw: "[[" + to + "]]", Key: strings.TrimSuffix(to, ".md"), Target: to}}}
	}
	require.NoError(t, writer.UpsertNotes(ctx, project, []core.Note{link("a.md", "b.md"), link("c.md", "b.md"), {ID: "b.md", Title: "b.md"}}))
	top := func() string {
		h, err := currentHubs(ctx, reader, project, core.MetricPageRank, 1)
		require.NoError(t, err)
		require.Len(t, h, 1)
		return h[0].ID
	}
	require.Equal(t, "b.md", top())
	require.NoError(t, writer.UpsertNotes(ctx, project, []core.Note{link("b.md", "d.md"), link("a.md", "d.md"), link("c.md", "d.md"), {ID: "d.md", Title: "d.md"}}))
	wctx, warnings := core.WithCallWarnings(ctx)
	h, err := reader.Hubs(wctx, project, core.MetricPageRank, 1)
	require.NoError(t, err)
	if len(warnings.List()) == 0 {
		require.Equal(t, "d.md", h[0].ID, "an answer without a warning reflects the write")
	}
	require.Equal(t, "d.md", top(), "the stored ranking follows the writer's change")
	ids, err := reader.Hubs(ctx, project, core.MetricPageRank, 0)
	require.NoError(t, err)
	require.True(t, slices.IsSortedFunc(ids, core.CompareHubs))
}

// neo4j:// (routing, as for clusters and Aura) works against a single
// server too, and a named database is used when configured.
func TestRoutingURIAndNamedDatabase(t *testing.T) {
	srv := neo4jtest.Get(t)
	if !strings.HasPrefix(srv.URI, "bolt://") {
		t.Skipf("server URI %s is not bolt://", srv.URI)
	}
	s := openStoreWith(t, func(c *Config) {
		c.URI = "neo4j://" + strings.TrimPrefix(srv.URI, "bolt://")
		if c.Database == "" {
			c.Database = "neo4j" // the default database's name on a stock server
		}
	})
	project := fmt.Sprintf("routing-%d", rand.Uint64())
	require.NoError(t, s.UpsertNotes(t.Context(), project, []core.Note{{ID: "a.md", Title: "A"}}))
	n, err := s.GetNote(t.Context(), project, "a.md")
	require.NoError(t, err)
	require.Equal(t, "A", n.Title)
	st, err := s.Status(t.Context())
	require.NoError(t, err)
	require.Equal(t, s.cfg.Database, st.Database)
}

// Processes that create the same index at once all succeed: the one whose
// commit finds the other's index runs its statement again (schemaWrite).
func TestConcurrentIndexCreationSucceeds(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	name := fmt.Sprintf("race_test_%d", rand.Uint64())
	create := statement{name: "race_create", text: "CREATE INDEX " + name + " IF NOT EXISTS FOR (n:RaceTest) ON (n.x)"}
	t.Cleanup(func() {
		_ = s.write(context.Background(), "drop", func(t txn) error {
			_, err := t.collect(statement{name: "race_drop", text: "DROP INDEX " + name + " IF EXISTS"}, nil)
			return err
		})
	})
	errs := make(chan error, 8)
	for range 8 {
		go func() { errs <- s.schemaWrite(ctx, "race", create, nil) }()
	}
	for range 8 {
		require.NoError(t, <-errs)
	}
}
