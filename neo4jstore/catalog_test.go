package neo4jstore

import (
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// waitCatalog waits until s has a catalog of project at the database's
// current change counter.
func waitCatalog(t *testing.T, s *Neo4jStore, project string) *catalog {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if cat := s.catalog(project); cat != nil {
			return cat
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no catalog of %s after 30 s", project)
	return nil
}

// Picks from the catalog answer what memstore answers, and a write by
// another process is seen at once: the stale catalog is not used, the scan
// answers, and a new catalog takes over.
func TestCatalogPicksAnswerAsMemstoreAndFollowWrites(t *testing.T) {
	t.Parallel()
	log := &statementLog{}
	s := openStoreWith(t, func(c *Config) { c.Logger = slog.New(log) })
	other := openStore(t) // another process writing
	ctx := t.Context()
	project := fmt.Sprintf("catalog-%d", rand.Uint64())
	spec := graphSpec{notes: 300, seed: 5, avgLinks: 3, preferHubs: 0.5, selfLinks: 0.05,
		ghosts: 0.1, components: 2, tags: 8, content: 40, oddIDs: true}
	notes := spec.generate()
	mem := memstore.New()
	for _, st := range []core.GraphWriter{mem, other} {
		require.NoError(t, st.UpsertNotes(ctx, project, notes))
	}

	neighborViews := func(ns []core.NeighborView) []core.NodeView {
		out := make([]core.NodeView, len(ns))
		for i, n := range ns {
			out[i] = n.NodeView
		}
		return out
	}
	compare := func(stage string) {
		t.Helper()
		// Contexts first: a stale catalog must not lend them its titles.
		for _, n := range notes[:40] {
			q := core.ContextQuery{Direction: core.DirectionBoth, Limit: 20}
			want, wantErr := mem.NoteContext(ctx, project, n.ID, q)
			got, err := s.NoteContext(ctx, project, n.ID, q)
			if wantErr != nil {
				assert.ErrorIs(t, err, core.ErrNotFound, "%s: context of %s", stage, n.ID)
				continue
			}
			require.NoError(t, err)
			assert.Equal(t, viewStrings(want.Neighbors), viewStrings(got.Neighbors), "%s: neighbours of %s", stage, n.ID)
			sameViews(t, []core.NodeView{want.Note}, []core.NodeView{got.Note}, "%s: %s", stage, n.ID)
			sameViews(t, neighborViews(want.Neighbors), neighborViews(got.Neighbors), "%s: neighbours of %s", stage, n.ID)
		}
		for _, tags := range [][]string{{"tag0"}, {"TAG1", "#tag2"}, {"tag0", "tag1"}, {"tag3", "tag4", "tag5"}, {"none"}, {"tag1", "none"}} {
			for _, mode := range []core.TagMode{core.TagModeAny, core.TagModeAll} {
				for _, limit := range []int{0, 1, 5} {
					want, err := mem.TaggedViews(ctx, project, tags, mode, limit)
					require.NoError(t, err)
					got, err := s.TaggedViews(ctx, project, tags, mode, limit)
					require.NoError(t, err)
					sameViews(t, want, got, "%s: %v %s limit %d", stage, tags, mode, limit)
				}
			}
			for _, k := range []int{0, 3, 1000} {
				pick := func(n int) int { return min(k, n-1) }
				want, err := mem.RandomView(ctx, project, tags, pick)
				require.NoError(t, err)
				got, err := s.RandomView(ctx, project, tags, pick)
				require.NoError(t, err)
				if want == nil {
					assert.Nil(t, got, "%s: random %v pick %d", stage, tags, k)
					continue
				}
				require.NotNil(t, got, "%s: random %v pick %d", stage, tags, k)
				sameViews(t, []core.NodeView{*want}, []core.NodeView{*got}, "%s: random %v pick %d", stage, tags, k)
				assert.Equal(t, want.Content, got.Content, "%s: random %v pick %d: whole content", stage, tags, k)
			}
		}
		want, err := mem.RandomNote(ctx, project, nil, func(n int) int { return n - 1 })
		require.NoError(t, err)
		got, err := s.RandomNote(ctx, project, nil, func(n int) int { return n - 1 })
		require.NoError(t, err)
		assert.Equal(t, want.ID, got.ID, "%s: last note", stage)
	}

	waitCatalog(t, s, project)
	scans := log.count("tags_any") + log.count("tags_all") + log.count("random_nth") + log.count("random_nth_tagged")
	compare("catalog")
	assert.Equal(t, scans, log.count("tags_any")+log.count("tags_all")+log.count("random_nth")+log.count("random_nth_tagged"),
		"a current catalog answers without scanning")
	assert.Positive(t, log.count("catalog_notes"))
	if cat := s.catalog(project); assert.NotNil(t, cat) {
		assert.Equal(t, len(notes), len(cat.titles), "the catalog holds every title")
	}

	// Another process deletes notes, retags one and adds one: answered at
	// once by the scan, then by a new catalog.
	_, err := other.DeleteNotes(ctx, project, []string{notes[0].ID, notes[7].ID, notes[100].ID})
	require.NoError(t, err)
	_, err = mem.DeleteNotes(ctx, project, []string{notes[0].ID, notes[7].ID, notes[100].ID})
	require.NoError(t, err)
	// Retag and retitle a note that notes[1:40] link to, so that a stale
	// catalog's titles would show.
	var changed core.Note
	for _, n := range notes[1:40] {
		for _, target := range n.LinkTargets() {
			for _, m := range notes[1:] {
				if m.ID == target && changed.ID == "" && m.ID != notes[7].ID && m.ID != notes[100].ID {
					changed = m
				}
			}
		}
	}
	require.NotEmpty(t, changed.ID)
	changed.Tags = []string{"tag0", "none"}
	changed.Title = "Retitled by another process"
	added := core.Note{ID: "zzz-new.md", Title: "New", Tags: []string{"tag1", "none"}, Hash: "n",
		Links: []core.Link{{Raw: "[[x]]", Key: keyFor(notes[3].ID), Target: notes[3].ID}}}
	for _, st := range []core.GraphWriter{mem, other} {
		require.NoError(t, st.UpsertNotes(ctx, project, []core.Note{changed, added}))
	}
	compare("after another process wrote")
	waitCatalog(t, s, project)
	compare("new catalog")
	e := s.catalogEntry(project)
	s.catalogs.mu.Lock()
	loads, catchUps := e.loads, e.catchUps
	s.catalogs.mu.Unlock()
	assert.Equal(t, 1, loads, "the catalog followed the other process's writes without loading again")
	assert.Positive(t, catchUps)
	assert.Equal(t, 1, log.count("catalog_load"), "one full load")
}

// The catalog's merges agree with a plain filter.
func TestCatalogTagSets(t *testing.T) {
	t.Parallel()
	c := &catalog{ids: []string{"a", "b", "c", "d", "e"}, tags: map[string][]int32{"x": {0, 2, 4}, "y": {1, 2}, "z": {2, 3, 4}}}
	assert.Equal(t, []int32{0, 1, 2, 4}, c.anyTag([]string{"x", "y"}, 0))
	assert.Equal(t, []int32{0, 1}, c.anyTag([]string{"x", "y"}, 2))
	assert.Equal(t, []int32{0, 2, 4}, c.anyTag([]string{"x", "nope"}, 0))
	assert.Empty(t, c.anyTag([]string{"nope"}, 0))
	assert.Equal(t, []int32{2, 4}, c.allTags([]string{"x", "z"}, 0))
	assert.Equal(t, []int32{2}, c.allTags([]string{"x", "y", "z"}, 0))
	assert.Equal(t, []int32{2}, c.allTags([]string{"z", "x"}, 1))
	assert.Empty(t, c.allTags([]string{"x", "nope"}, 0))
}

// catalogOf builds a catalog from rows as a full load would.
func catalogOf(version int64, rows map[string]*catalogRow) *catalog {
	cat := &catalog{version: version, ids: []string{}, titles: []string{}, tags: map[string][]int32{}}
	for _, id := range slices.Sorted(maps.Keys(rows)) {
		if core.IsFileNode(id) {
			cat.files = append(cat.files, int32(len(cat.ids)))
		}
		cat.ids = append(cat.ids, id)
		cat.titles = append(cat.titles, rows[id].title)
		for _, t := range distinctTags(rows[id].tags) {
			cat.tags[t] = append(cat.tags[t], int32(len(cat.ids)-1))
		}
	}
	return cat
}

// A catch-up's apply gives exactly the catalog a full load of the changed
// rows would, for any mix of added, changed, retagged and removed notes,
// and leaves the old catalog as it was.
func TestCatalogApplyEqualsAFreshLoad(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	tags := []string{"a", "b", "b/c", "d", "e"}
	randomRow := func() *catalogRow {
		row := &catalogRow{title: fmt.Sprintf("T%d", rng.IntN(1000))}
		for range rng.IntN(4) {
			row.tags = append(row.tags, tags[rng.IntN(len(tags))])
		}
		return row
	}
	exts := []string{".md", ".md", ".png", ".canvas"} // attachments and canvases too (catalog.files)
	randomID := func() string { return fmt.Sprintf("n%03d%s", rng.IntN(60), exts[rng.IntN(len(exts))]) }
	for round := range 500 {
		rows := map[string]*catalogRow{}
		for range rng.IntN(40) {
			rows[randomID()] = randomRow()
		}
		before := catalogOf(int64(round), rows)
		snapshot := catalogOf(int64(round), rows)
		changed := map[string]*catalogRow{}
		for range rng.IntN(10) {
			id := randomID()
			if rng.IntN(3) == 0 {
				changed[id] = nil
				delete(rows, id)
			} else {
				changed[id] = randomRow()
				rows[id] = changed[id]
			}
		}
		got := before.apply(int64(round)+1, changed)
		want := catalogOf(int64(round)+1, rows)
		require.Equal(t, want.version, got.version)
		require.Equal(t, want.ids, got.ids, "round %d", round)
		require.Equal(t, want.titles, got.titles, "round %d", round)
		require.Equal(t, len(want.tags), len(got.tags), "round %d: %v vs %v", round, want.tags, got.tags)
		for tag, list := range want.tags {
			require.Equal(t, list, got.tags[tag], "round %d tag %s", round, tag)
		}
		require.Equal(t, want.files, got.files, "round %d: attachments and canvases", round)
		for k := range len(got.ids) - len(got.files) {
			require.False(t, core.IsFileNode(got.ids[got.nthNote(k)]), "round %d: note %d", round, k)
		}
		require.Equal(t, snapshot, before, "round %d: the old catalog is untouched", round)
	}
}
