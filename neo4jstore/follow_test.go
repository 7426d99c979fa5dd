package neo4jstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// A Store following a project hears of the notes another Store writes and
// deletes, and not of its own writes (issue 46.3: a subscription on one
// replica, the write through another).
func TestFollowChangesReportsOtherStoresWrites(t *testing.T) {
	t.Parallel()
	a, b := openStore(t), openStore(t)
	ctx, cancel := context.WithCancel(t.Context())
	project := fmt.Sprintf("follow-%d", rand.Uint64())
	notes := graphSpec{notes: 4, seed: 5, avgLinks: 1, tags: 2, content: 5}.generate()
	require.NoError(t, b.UpsertNotes(ctx, project, notes[:2])) // before following: not reported

	got := make(chan []string, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.FollowChanges(ctx, project, 20*time.Millisecond, func(ids []string) { got <- ids })
	}()
	t.Cleanup(func() { cancel(); <-done })
	next := func(what string) []string {
		t.Helper()
		select {
		case ids := <-got:
			return ids
		case <-time.After(time.Minute):
			t.Fatalf("no change reported after %s", what)
			return nil
		}
	}
	// The first look sets the starting version (writes before it are not
	// reported): b writes until one of its writes is reported. a's own
	// write, before each, never is.
	var seen []string
	for i := 0; !slices.Contains(seen, notes[3].ID); i++ {
		require.Less(t, i, 60, "b's writes were never reported")
		require.NoError(t, a.UpsertNotes(ctx, project, notes[2:3]))
		require.NoError(t, b.UpsertNotes(ctx, project, notes[3:4]))
		select {
		case ids := <-got:
			require.NotNil(t, ids, "a small write is reported by its IDs")
			require.NotContains(t, ids, notes[2].ID, "a's own write is not reported to a")
			seen = append(seen, ids...)
		case <-time.After(time.Second):
		}
	}
	n, err := b.DeleteNotes(ctx, project, []string{notes[0].ID})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	for ids := next("b's delete"); !slices.Contains(ids, notes[0].ID); ids = next("b's delete") {
		require.Equal(t, []string{notes[3].ID}, ids, "only b's earlier rounds are reported before its delete")
	}
	var _ core.ChangeFollower = a
}
