package memstore

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// Stamping again what the last commit recorded commits nothing (a process
// stamps when it stops, mostly with nothing written since its sync): the
// file's version stays, and the stamp with it; another stamp is recorded.
func TestStampAgainCommitsNothing(t *testing.T) {
	ctx := t.Context()
	s, err := Open(t.TempDir())
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close(ctx)) }()
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{{ID: "a.md", Path: "a.md", Title: "a", Hash: "h"}}))
	version := func() (v uint64) {
		require.NoError(t, s.kv.View(func(tx *kv.Tx) error { v = tx.Version(); return nil }))
		return v
	}
	stamp := func() string {
		var st string
		require.NoError(t, s.kv.View(func(tx *kv.Tx) error { st = string(tx.GetRaw(stampsBucket, "p")); return nil }))
		return st
	}
	require.NoError(t, s.StampStates(ctx, "p", "v1"))
	v, recorded := version(), stamp()
	require.NoError(t, s.StampStates(ctx, "p", "v1"))
	require.Equal(t, v, version(), "nothing committed")
	require.Equal(t, recorded, stamp())
	require.NoError(t, s.StampStates(ctx, "p", "v2"))
	require.Equal(t, v+1, version())
	require.NotEqual(t, recorded, stamp())
}
