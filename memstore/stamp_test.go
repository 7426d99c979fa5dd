package memstore_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// stampOf is the project's stamp as a restart sees it: its states read
// (NoteStates), then the stamp.
func stampOf(t *testing.T, s *memstore.Store) (stamp string, states []string) {
	t.Helper()
	states = statesOf(t, s)
	stamp, err := s.StatesStamp(t.Context(), opsProject)
	require.NoError(t, err)
	return stamp, states
}

// A stamp recorded after the states were read is given back to a later
// NoteStates that reads the same file, whether it loads the graph or reads
// a loaded one; a write committed after it (to any project, by this
// process or another) withdraws it. The stamper vouches for its own writes
// before the stamp (a sync stamps what it wrote): a stamp after them, with
// or without a NoteStates before, is recorded.
func TestStatesStamp(t *testing.T) {
	ctx, dir := t.Context(), t.TempDir()
	ops := noteOps{seed: 3}
	s, err := memstore.Open(dir)
	require.NoError(t, err)
	for i := range 20 {
		require.NoError(t, ops.apply(ctx, s, i))
	}
	statesOf(t, s) // a loaded graph's states
	require.NoError(t, s.StampStates(ctx, opsProject, "v1"))
	require.NoError(t, s.Close(ctx))

	reopen := func() *memstore.Store {
		s, err := memstore.Open(dir)
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close(ctx) })
		return s
	}
	s = reopen()
	stamp, _ := stampOf(t, s) // loads the graph
	require.Equal(t, "v1", stamp)
	stamp, _ = stampOf(t, s) // the loaded graph
	require.Equal(t, "v1", stamp)
	require.NoError(t, s.Close(ctx))

	// A write to another project withdraws it.
	s = reopen()
	require.NoError(t, s.UpsertNotes(ctx, "other", []core.Note{{ID: "x.md", Path: "x.md", Title: "x", Hash: "h"}}))
	stamp, _ = stampOf(t, s)
	require.Empty(t, stamp)
	// Stamped again after this process's own write: recorded, and the
	// next open reads the states written.
	require.NoError(t, ops.apply(ctx, s, 20))
	require.NoError(t, s.StampStates(ctx, opsProject, "v2"))
	_, want := stampOf(t, s)
	require.NoError(t, s.Close(ctx))
	s = reopen()
	stamp, got := stampOf(t, s)
	require.Equal(t, "v2", stamp)
	require.Equal(t, want, got)
	// A write after the stamp withdraws it.
	require.NoError(t, ops.apply(ctx, s, 21))
	require.NoError(t, s.Close(ctx))
	s = reopen()
	stamp, _ = stampOf(t, s)
	require.Empty(t, stamp)
	require.NoError(t, s.Close(ctx))

	// A stamp with no NoteStates before it (a first sync stamps what it
	// wrote) is recorded too.
	s = reopen()
	require.NoError(t, ops.apply(ctx, s, 22))
	require.NoError(t, s.StampStates(ctx, opsProject, "v4"))
	require.NoError(t, s.Close(ctx))
	s = reopen()
	stamp, _ = stampOf(t, s)
	require.Equal(t, "v4", stamp)

	// The in-memory store has no versions: no stamp.
	m := memstore.New()
	require.NoError(t, ops.apply(ctx, m, 0))
	statesOf(t, m)
	require.NoError(t, m.StampStates(ctx, opsProject, "v1"))
	stamp, _ = stampOf(t, m)
	require.Empty(t, stamp)
}

// A stamped store that a writer process was SIGKILLed on, at any moment,
// gives its stamp back only if its states are those stamped: a write that
// committed withdraws it, one cut before its commit left nothing.
func TestStatesStampAfterACrash(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	ctx, dir := t.Context(), t.TempDir()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	ops := noteOps{seed: seed}
	s, err := memstore.Open(dir)
	require.NoError(t, err)
	for i := range 10 {
		require.NoError(t, ops.apply(ctx, s, i))
	}
	require.NoError(t, s.Close(ctx))
	from := 10
	for round := range 6 {
		s, err := memstore.Open(dir)
		require.NoError(t, err)
		want := statesOf(t, s)
		require.NoError(t, s.StampStates(ctx, opsProject, "v1"))
		require.NoError(t, s.Close(ctx))

		cmd := child(t, "TestChildNoteWriter", envNotesDir+"="+dir,
			fmt.Sprintf("%s=%d", envNotesSeed, seed), fmt.Sprintf("%s=%d", envNotesFrom, from))
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		sc := bufio.NewScanner(stdout)
		acked := false
		delay := time.Duration(rng.IntN(40)) * time.Millisecond
		for sc.Scan() {
			l := sc.Text()
			if l == "open" {
				time.Sleep(delay)
				require.NoError(t, cmd.Process.Kill())
				continue
			}
			acked = acked || strings.HasPrefix(l, "ack ")
		}
		_ = cmd.Wait()
		from += 1000

		s, err = memstore.Open(dir)
		require.NoError(t, err)
		stamp, got := stampOf(t, s)
		if acked {
			require.Empty(t, stamp, "round %d: a write was acknowledged", round)
		}
		if stamp != "" {
			require.Equal(t, want, got, "round %d: stamped, so unchanged", round)
		}
		require.NoError(t, s.Close(ctx))
	}
}

// A write that touches no note record (a project record, the change log)
// carries a current stamp to its own version: the next restart still gets
// it. A note write after it withdraws it, and a stamp not current (a note
// written since) is not carried by a later write.
func TestStampsCarriedByWritesOutsideNotes(t *testing.T) {
	ctx, dir := t.Context(), t.TempDir()
	ops := noteOps{seed: 5}
	s, err := memstore.Open(dir)
	require.NoError(t, err)
	for i := range 10 {
		require.NoError(t, ops.apply(ctx, s, i))
	}
	require.NoError(t, s.StampStates(ctx, opsProject, "v1"))
	require.NoError(t, s.PutProject(ctx, memstore.ProjectRecord{ID: "p1", Name: "p1", Slug: "p1"}))
	now := time.Now()
	require.NoError(t, s.AppendChanges(ctx, opsProject, []core.NoteChange{{Kind: core.ChangeCreated, ID: "n.md", Path: "n.md", At: now, Key: core.ChangeKey(now)}}))
	require.NoError(t, s.Close(ctx))

	s, err = memstore.Open(dir)
	require.NoError(t, err)
	stamp, _ := stampOf(t, s)
	require.Equal(t, "v1", stamp, "carried by the project record and the change log")
	require.NoError(t, ops.apply(ctx, s, 10))
	require.NoError(t, s.PutProject(ctx, memstore.ProjectRecord{ID: "p2", Name: "p2", Slug: "p2"}))
	require.NoError(t, s.Close(ctx))

	s, err = memstore.Open(dir)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close(ctx)) }()
	stamp, _ = stampOf(t, s)
	require.Empty(t, stamp, "a note written after the stamp; not carried past it")
}
