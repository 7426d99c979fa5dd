package neo4jstore

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// NoteContext with a current catalog picks the neighbours from the
// catalog's links (note_context_ids) and answers what memstore answers for
// every query shape (get_node depth=1's balanced 20, both/in/out with and
// without limits, SkipNote, the most linked-to note, a missing note), with
// no walk of the relationships but the missing note's; right after
// another process's write (the catalog behind) the answers are still
// memstore's, and again from the caught-up catalog.
func TestNoteContextFromCatalogLinksAnswersAsMemstore(t *testing.T) {
	log := &statementLog{}
	s := openStoreWith(t, func(c *Config) { c.Logger = slog.New(log) })
	other := openStore(t) // another process writing
	ctx := t.Context()
	project := fmt.Sprintf("context-%d", rand.Uint64())
	spec := graphSpec{notes: 300, seed: 5, avgLinks: 3, preferHubs: 0.5, selfLinks: 0.05,
		ghosts: 0.1, components: 2, tags: 8, content: 40, oddIDs: true}
	notes := spec.generate()
	mem := memstore.New()
	for _, st := range []core.GraphWriter{mem, other} {
		require.NoError(t, st.UpsertNotes(ctx, project, notes))
	}
	in := map[string]int{}
	for _, n := range notes {
		for _, target := range n.LinkTargets() {
			in[target]++
		}
	}
	hub := notes[0].ID // the most linked-to note, to pass the limits
	for id, k := range in {
		if k > in[hub] || (k == in[hub] && id < hub) {
			hub = id
		}
	}
	queries := []core.ContextQuery{
		{Direction: core.DirectionBoth, Limit: 20},
		{Direction: core.DirectionBoth, Limit: core.ContextNeighborCount, Balanced: true},
		{Direction: core.DirectionBoth, Limit: 3, Balanced: true, SkipNote: true},
		{Direction: core.DirectionBoth},
		{Direction: core.DirectionOut, Limit: 3},
		{Direction: core.DirectionIn},
		{Direction: core.DirectionIn, Limit: 2, SkipNote: true},
	}
	neighborViews := func(ns []core.NeighborView) []core.NodeView {
		out := make([]core.NodeView, len(ns))
		for i, n := range ns {
			out[i] = n.NodeView
		}
		return out
	}
	// compare returns how many of the notes asked for are missing (a
	// statement, not the catalog, finds each missing).
	compare := func(stage string) (missing int) {
		t.Helper()
		ids := append(slices.Clone(notes[:60]), core.Note{ID: hub}, core.Note{ID: "missing.md"})
		for k, n := range ids {
			q := queries[k%len(queries)]
			if n.ID == hub || n.ID == "missing.md" {
				q = queries[1]
			}
			want, wantErr := mem.NoteContext(ctx, project, n.ID, q)
			got, err := s.NoteContext(ctx, project, n.ID, q)
			if wantErr != nil {
				assert.ErrorIs(t, err, core.ErrNotFound, "%s: context of %s", stage, n.ID)
				missing++
				continue
			}
			require.NoError(t, err)
			assert.Equal(t, viewStrings(want.Neighbors), viewStrings(got.Neighbors), "%s: neighbours of %s %+v", stage, n.ID, q)
			assert.Equal(t, want.Degree, got.Degree, "%s: degree of %s", stage, n.ID)
			if !q.SkipNote {
				sameViews(t, []core.NodeView{want.Note}, []core.NodeView{got.Note}, "%s: %s", stage, n.ID)
			}
			sameViews(t, neighborViews(want.Neighbors), neighborViews(got.Neighbors), "%s: neighbours of %s %+v", stage, n.ID, q)
		}
		return missing
	}
	walks := func() int {
		return log.count("note_context_both") + log.count("note_context_balanced") + log.count("note_context_in") + log.count("note_context_out")
	}

	waitCurrentLinks(t, s, project)
	before, picks := walks(), log.count("note_context_ids")
	missing := compare("catalog")
	// All but the missing notes', which the catalog does not hold.
	assert.Equal(t, before+missing, walks(), "a current catalog picks the neighbours without walking the relationships")
	assert.Greater(t, log.count("note_context_ids"), picks)

	// Another process relinks notes the first ones link to and deletes one.
	relinked := slices.Clone(notes[1:6])
	for i := range relinked {
		relinked[i].Links = []core.Link{{Raw: "[[x]]", Key: keyFor(notes[100+i].ID), Target: notes[100+i].ID}}
	}
	for _, st := range []core.GraphWriter{mem, other} {
		require.NoError(t, st.UpsertNotes(ctx, project, relinked))
		_, err := st.DeleteNotes(ctx, project, []string{notes[7].ID})
		require.NoError(t, err)
	}
	compare("right after another process wrote")
	waitCurrentLinks(t, s, project)
	before = walks()
	missing = compare("caught up")
	assert.Equal(t, 2, missing, "missing.md and the deleted note")
	assert.Equal(t, before+missing, walks(), "the caught-up catalog picks the neighbours")
}
