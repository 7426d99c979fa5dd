package memstore_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/core/storetest"
	"github.com/vaultgraph/vaultgraph/memstore"
)

func TestContract(t *testing.T) {
	storetest.RunWithOptions(t, func(t *testing.T) core.StoreProvider {
		s := memstore.New()
		t.Cleanup(func() { _ = s.Close(t.Context()) })
		return s
	}, storetest.Options{Parallel: true})
}

func TestContractOnAFileBackedStore(t *testing.T) {
	s, err := memstore.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close(t.Context()) })
	storetest.Run(t, func(*testing.T) core.StoreProvider { return s })
}

func note(id string, targets ...string) core.Note {
	n := core.Note{ID: id, Title: "T " + id, Keys: []string{id}}
	for _, t := range targets {
		n.Links = append(n.Links, core.Link{Key: t, Target: t})
	}
	return n
}

func TestBadArgumentsAreInvalidArgumentErrors(t *testing.T) {
	ctx, s := t.Context(), memstore.New()
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{note("a", "b"), note("b")}))
	_, err := s.Neighbors(ctx, "p", "a", "sideways", 1)
	assert.ErrorIs(t, err, core.ErrInvalidArgument)
	_, err = s.Hubs(ctx, "p", "fame", 1)
	assert.ErrorIs(t, err, core.ErrInvalidArgument)
	_, err = s.NotesByTags(ctx, "p", []string{"x"}, "some", 1)
	assert.ErrorIs(t, err, core.ErrInvalidArgument)
	_, err = s.RandomNote(ctx, "p", nil, nil)
	assert.ErrorIs(t, err, core.ErrInvalidArgument)
	_, err = s.RandomNote(ctx, "p", nil, func(n int) int { return n })
	assert.ErrorIs(t, err, core.ErrInvalidArgument, "index n is out of range")
	err = s.UpsertNotes(ctx, "p", []core.Note{note("c"), {Title: "no id"}})
	assert.ErrorIs(t, err, core.ErrInvalidArgument)
	n, err := s.CountNotes(ctx, "p")
	require.NoError(t, err)
	assert.Equal(t, 2, n, "a rejected batch writes nothing")
}

func TestTheLaterNoteWinsWhenABatchRepeatsAnID(t *testing.T) {
	ctx, s := t.Context(), memstore.New()
	first, second := note("a", "b"), note("a")
	second.Title = "second"
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{first, note("b"), second}))
	got, err := s.GetNote(ctx, "p", "a")
	require.NoError(t, err)
	assert.Equal(t, "second", got.Title)
	d, err := s.Degree(ctx, "p", "b")
	require.NoError(t, err)
	assert.Equal(t, core.Degree{}, d)
}

func TestHubsWithoutALimitRankEveryNote(t *testing.T) {
	ctx, s := t.Context(), memstore.New()
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{note("a", "b"), note("b"), note("c", "b")}))
	hubs, err := s.Hubs(ctx, "p", core.MetricInDegree, 0)
	require.NoError(t, err)
	assert.Equal(t, []core.Hub{{ID: "b", Title: "T b", Score: 2}, {ID: "a", Title: "T a"}, {ID: "c", Title: "T c"}}, hubs)
	tagged, err := s.NotesByTags(ctx, "p", []string{"none"}, core.TagModeAny, 0)
	require.NoError(t, err)
	assert.Empty(t, tagged)
}

// The contract allows PageRank scores within a tolerance; memstore feeds
// core.PageRank the documented edge order and must match exactly.
func TestPageRankIsBitIdenticalToCorePageRankScores(t *testing.T) {
	ctx, s := t.Context(), memstore.New()
	rng := rand.New(rand.NewPCG(3, 5))
	var notes []core.Note
	var ids []string
	var edges [][2]string
	for i := range 300 {
		ids = append(ids, fmt.Sprintf("n%03d", rng.IntN(1000)*1000+i))
	}
	for _, id := range ids {
		n := note(id)
		for range rng.IntN(6) {
			t := ids[rng.IntN(len(ids))]
			n.Links = append(n.Links, core.Link{Key: t, Target: t})
			edges = append(edges, [2]string{id, t})
		}
		notes = append(notes, n)
	}
	require.NoError(t, s.UpsertNotes(ctx, "p", notes))
	want := core.PageRankScores(ids, edges)
	hubs, err := s.Hubs(ctx, "p", core.MetricPageRank, 0)
	require.NoError(t, err)
	require.Len(t, hubs, len(ids))
	for _, h := range hubs {
		if h.Score != want[h.ID] {
			t.Fatalf("score of %s = %v, want exactly %v", h.ID, h.Score, want[h.ID])
		}
	}
}

func TestAClosedStoreRefusesCalls(t *testing.T) {
	ctx, s := t.Context(), memstore.New()
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{note("a")}))
	require.NoError(t, s.Close(ctx))
	require.NoError(t, s.Close(ctx), "closing twice is a no-op")
	_, err := s.GetNote(ctx, "p", "a")
	assert.ErrorIs(t, err, memstore.ErrClosed)
	assert.ErrorIs(t, s.UpsertNotes(ctx, "p", []core.Note{note("b")}), memstore.ErrClosed)
	_, err = s.DeleteNotes(ctx, "p", []string{"a"})
	assert.ErrorIs(t, err, memstore.ErrClosed)
	assert.ErrorIs(t, s.PutProject(ctx, memstore.ProjectRecord{ID: "x"}), memstore.ErrClosed)
	_, err = s.Projects(ctx)
	assert.True(t, errors.Is(err, memstore.ErrClosed))
}

// Notes returned together share one allocation for their tags and links;
// appending to one note's slices must not write into the next note's.
func TestAppendingToAReturnedNoteLeavesTheOthersAlone(t *testing.T) {
	ctx, s := t.Context(), memstore.New()
	a, b := note("a", "b"), note("b", "a")
	a.Tags, b.Tags = []string{"x"}, []string{"x"}
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{a, b}))
	got, err := s.NotesByTags(ctx, "p", []string{"x"}, core.TagModeAll, 0)
	require.NoError(t, err)
	require.Len(t, got, 2)
	got[0].Links = append(got[0].Links, core.Link{Key: "intruder"})
	got[0].Tags = append(got[0].Tags, "intruder")
	assert.Equal(t, []core.Link{{Key: "a", Target: "a"}}, got[1].Links)
	assert.Equal(t, []string{"x"}, got[1].Tags)
}
