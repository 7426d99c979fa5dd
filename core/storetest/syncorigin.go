package storetest

import (
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// syncOriginCases: where each project's last full sync ran (issue 44.8).
var syncOriginCases = []testCase{
	{"a project's sync origin is recorded, replaced and kept apart from other projects'", func(e *env) {
		one, two := e.project(), e.project()
		o, err := e.store.SyncOrigin(e.ctx, one)
		require.NoError(e.t, err)
		require.True(e.t, o.IsZero(), "a project never synced has no origin: %+v", o)

		at := time.Date(2026, 11, 28, 18, 30, 0, 0, time.UTC)
		a := core.SyncOrigin{Host: "laptop", Path: "/home/me/notes", At: at}
		require.NoError(e.t, e.store.SaveSyncOrigin(e.ctx, one, a))
		o, err = e.store.SyncOrigin(e.ctx, one)
		require.NoError(e.t, err)
		require.Equal(e.t, a.Host, o.Host)
		require.Equal(e.t, a.Path, o.Path)
		require.True(e.t, a.At.Equal(o.At), "at: want %s, got %s", a.At, o.At)

		other, err := e.store.SyncOrigin(e.ctx, two)
		require.NoError(e.t, err)
		require.True(e.t, other.IsZero(), "another project's origin leaked: %+v", other)

		b := core.SyncOrigin{Host: "server", Path: "/srv/vault", At: at.Add(time.Hour)}
		require.NoError(e.t, e.store.SaveSyncOrigin(e.ctx, one, b))
		o, err = e.store.SyncOrigin(e.ctx, one)
		require.NoError(e.t, err)
		require.Equal(e.t, b.Host, o.Host)
		require.Equal(e.t, b.Path, o.Path)
		require.True(e.t, b.At.Equal(o.At), "at: want %s, got %s", b.At, o.At)

		// Notes written after it do not erase it.
		e.upsert(one, core.Note{ID: "a.md", Title: "A", Keys: []string{"a"}})
		o, err = e.store.SyncOrigin(e.ctx, one)
		require.NoError(e.t, err)
		require.Equal(e.t, b.Host, o.Host)
	}},
}
