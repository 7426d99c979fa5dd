package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/neo4jstore"
)

// originStore is a store that records sync origins.
type originStore interface {
	core.GraphStore
	core.SyncOrigins
}

// TestFullSyncFromAnotherHostDoesNotEraseItsNotes (issue 44.8), on both
// stores: two vault paths with one identity (project) on two hosts. A
// full sync that would delete notes of the project last synced from the
// other host refuses and writes nothing; with AllowForeignDeletes it
// goes through; a sync from the recorded origin, or one deleting
// nothing, needs no force.
func TestFullSyncFromAnotherHostDoesNotEraseItsNotes(t *testing.T) {
	t.Run("embedded", func(t *testing.T) {
		s := memstore.New()
		t.Cleanup(func() { _ = s.Close(context.Background()) })
		checkForeignSync(t, s, testProject)
	})
	t.Run("neo4j", func(t *testing.T) {
		srv := neo4jtest.Get(t)
		s, err := neo4jstore.Open(t.Context(), neo4jstore.Config{URI: srv.URI, User: srv.User, Password: srv.Password, Database: srv.Database})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close(context.Background()) })
		checkForeignSync(t, s, fmt.Sprintf("foreign-%d", time.Now().UnixNano()))
	})
}

func checkForeignSync(t *testing.T, store originStore, project string) {
	ctx := t.Context()
	laptop, server := t.TempDir(), t.TempDir()
	writeFile(t, laptop, "shared.md", "Both have it, links [[only-laptop]].")
	writeFile(t, laptop, "only-laptop.md", "Written on the laptop.")
	writeFile(t, server, "shared.md", "Both have it.")
	writeFile(t, server, "only-server.md", "Written on the server.")
	sync := func(root, host string, force bool) (SyncStats, error) {
		m := newTestMirror(t, root, store, func(c *Config) {
			c.Project, c.Origins, c.Host, c.AllowForeignDeletes = project, store, host, force
		})
		defer func() { _ = m.Close() }()
		return m.Sync(ctx)
	}
	ids := func() []string {
		hashes, err := store.NoteHashes(ctx, project)
		require.NoError(t, err)
		var out []string
		for id := range hashes {
			out = append(out, id)
		}
		sort.Strings(out)
		return out
	}

	_, err := sync(laptop, "laptop", false)
	require.NoError(t, err)
	o, err := store.SyncOrigin(ctx, project)
	require.NoError(t, err)
	require.Equal(t, "laptop", o.Host)
	require.Equal(t, mustAbs(t, laptop), o.Path)

	// The server's vault lacks only-laptop.md: refused, nothing written.
	_, err = sync(server, "server", false)
	var foreign *ForeignSyncError
	require.True(t, errors.As(err, &foreign), "want a ForeignSyncError, got %v", err)
	require.False(t, core.IsProviderError(err), "a refusal is not a provider error (serve would ride it out)")
	require.Equal(t, 1, foreign.Deletes)
	require.Equal(t, []string{"only-laptop.md"}, foreign.Sample)
	require.Contains(t, err.Error(), "--force")
	require.Contains(t, err.Error(), "laptop:")
	require.Equal(t, []string{"only-laptop.md", "shared.md"}, ids(), "a refused sync wrote nothing")
	o, err = store.SyncOrigin(ctx, project)
	require.NoError(t, err)
	require.Equal(t, "laptop", o.Host, "a refused sync leaves the origin")

	// Forced: the server's vault wins and becomes the origin.
	st, err := sync(server, "server", true)
	require.NoError(t, err)
	require.Equal(t, 1, st.Deleted)
	require.Equal(t, []string{"only-server.md", "shared.md"}, ids())
	o, err = store.SyncOrigin(ctx, project)
	require.NoError(t, err)
	require.Equal(t, "server", o.Host)

	// From the recorded origin, deletes need no force.
	removeFile(t, server, "only-server.md")
	st, err = sync(server, "server", false)
	require.NoError(t, err)
	require.Equal(t, 1, st.Deleted)

	// From another host, a sync that deletes nothing needs no force, and
	// makes that host the origin.
	writeFile(t, laptop, "only-laptop.md", "Back on the laptop.")
	_, err = sync(laptop, "laptop", false)
	require.NoError(t, err)
	require.Equal(t, []string{"only-laptop.md", "shared.md"}, ids())
	o, err = store.SyncOrigin(ctx, project)
	require.NoError(t, err)
	require.Equal(t, "laptop", o.Host)
}

func removeFile(t *testing.T, root, rel string) {
	t.Helper()
	require.NoError(t, os.Remove(filepath.Join(root, filepath.FromSlash(rel))))
}

// mustAbs is root as the Mirror records it (absolute, symbolic links
// resolved).
func mustAbs(t *testing.T, root string) string {
	t.Helper()
	abs, err := filepath.EvalSymlinks(root)
	require.NoError(t, err)
	return abs
}
