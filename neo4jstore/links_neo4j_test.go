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

// waitCurrentLinks waits until s has a catalog of project at the
// database's change counter with complete links (pathLinks), catching it
// up as reads would.
func waitCurrentLinks(t *testing.T, s *Neo4jStore, project string) *catalog {
	t.Helper()
	ctx := t.Context()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if cat := s.catalog(project); cat != nil {
			v, err := s.graphVersion(ctx, project)
			require.NoError(t, err)
			if cat.version == v && cat.pathLinks() != nil {
				return cat
			}
			if cat.version != v {
				s.advanceCatalog(ctx, project, cat)
				continue
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no current catalog with links of %s after 60 s", project)
	return nil
}

// find_path answered from the catalog's links is memstore's path, and
// the links follow every kind of write, by this Store and by another one
// (two Stores on one project stand in for two replicas): relinks, deletes
// (links to the deleted note become ghosts), renames (a new note claiming
// the old one's key resolves those ghosts), a staged write caught up with
// while it draws its links, and a new Store (a restart) loading them.
// Right after each write the answers are exact at once (a catalog behind
// the database is not used); once caught up, no path statement runs.
func TestCatalogLinksFollowWrites(t *testing.T) {
	t.Parallel()
	log := &statementLog{}
	s := openStoreWith(t, func(c *Config) { c.Logger = slog.New(log) })
	s.linksPage = 7       // the full load reads the links in many pages
	other := openStore(t) // another replica
	other.staged = tinyStages
	ctx := t.Context()
	project := fmt.Sprintf("links-%d", rand.Uint64())
	spec := graphSpec{notes: 160, seed: 9, avgLinks: 3, preferHubs: 0.5, selfLinks: 0.05,
		ghosts: 0.15, components: 2, tags: 4, content: 20, oddIDs: true}
	notes := spec.generate()
	mem := memstore.New()
	write := func(by core.GraphWriter, f func(st core.GraphWriter) error) {
		t.Helper()
		require.NoError(t, f(mem))
		require.NoError(t, f(by))
	}
	upsert := func(by core.GraphWriter, ns ...core.Note) {
		write(by, func(st core.GraphWriter) error { return st.UpsertNotes(ctx, project, ns) })
	}
	remove := func(by core.GraphWriter, ids ...string) {
		write(by, func(st core.GraphWriter) error { _, err := st.DeleteNotes(ctx, project, ids); return err })
	}
	upsert(other, notes...)

	rng := rand.New(rand.NewPCG(1, 2))
	pathStatements := func() int { return log.count("path_shortest") + log.count("path_walk") }
	comparePaths := func(st *Neo4jStore, stage string, viaCatalog bool) {
		t.Helper()
		hashes, err := mem.NoteHashes(ctx, project)
		require.NoError(t, err)
		ids := append(slices.Sorted(maps.Keys(hashes)), "missing.md")
		before := pathStatements()
		for range 120 {
			from, to := ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))]
			want, err := mem.ShortestPath(ctx, project, from, to)
			require.NoError(t, err)
			got, err := st.ShortestPath(ctx, project, from, to)
			require.NoError(t, err)
			assert.Equal(t, want, got, "%s: %s → %s", stage, from, to)
		}
		if viaCatalog && st == s {
			assert.Equal(t, before, pathStatements(), "%s: the catalog answered", stage)
		}
	}

	waitCurrentLinks(t, s, project)
	comparePaths(s, "loaded", true)

	// Another replica relinks notes, deletes two (one a hub) and renames one.
	var hub core.Note
	for _, n := range notes {
		for _, l := range n.Links {
			if l.Target != "" && hub.ID == "" && l.Target != n.ID {
				hub = notes[slices.IndexFunc(notes, func(m core.Note) bool { return m.ID == l.Target })]
			}
		}
	}
	relinked := slices.Clone(notes[10:14])
	for i := range relinked {
		relinked[i].Links = []core.Link{{Raw: "[[x]]", Key: keyFor(notes[20+i].ID), Target: notes[20+i].ID},
			{Raw: "[[ghost-1]]", Key: "ghost-1"}}
	}
	upsert(other, relinked...)
	remove(other, hub.ID, notes[30].ID)
	renamed := notes[40]
	remove(other, renamed.ID)
	renamed.ID, renamed.Path = "renamed/"+renamed.ID, "renamed/"+renamed.ID
	renamed.Keys = append(renamed.Keys, keyFor(notes[40].ID)) // claims the old name's ghosts
	upsert(other, renamed)
	// And one that claims ghost-1: the relinked notes' ghosts resolve to it.
	upsert(other, core.Note{ID: "ghost-1.md", Title: "Ghost one", Hash: "g", Keys: []string{"ghost-1"},
		Links: []core.Link{{Raw: "[[x]]", Key: keyFor(renamed.ID), Target: renamed.ID}}})
	comparePaths(s, "right after another replica's writes", false)
	waitCurrentLinks(t, s, project)
	comparePaths(s, "caught up with another replica's writes", true)

	// This Store writes: its catalog follows its own writes alike.
	upsert(s, core.Note{ID: "own.md", Title: "Own", Hash: "o",
		Links: []core.Link{{Raw: "[[x]]", Key: keyFor(notes[50].ID), Target: notes[50].ID}}})
	remove(s, notes[51].ID)
	comparePaths(s, "right after its own writes", false)
	waitCurrentLinks(t, s, project)
	comparePaths(s, "caught up with its own writes", true)

	// A staged write by another replica, its links drawn in transactions
	// that list no notes; the catalog catches up after each of its steps.
	var fresh []core.Note
	for i := range 40 {
		id := fmt.Sprintf("staged/%02d.md", i)
		n := core.Note{ID: id, Title: id, Hash: id, Keys: []string{keyFor(id)}}
		if i%5 == 0 {
			n.Keys = append(n.Keys, fmt.Sprintf("ghost-%d", 2+i/5)) // resolves older ghosts
		}
		for _, j := range []int{i + 1, i + 7} {
			if j < 40 {
				tid := fmt.Sprintf("staged/%02d.md", j)
				n.Links = append(n.Links, core.Link{Raw: "[[x]]", Key: keyFor(tid), Target: tid})
			}
		}
		n.Links = append(n.Links, core.Link{Raw: "[[x]]", Key: keyFor(notes[60+i].ID), Target: notes[60+i].ID})
		fresh = append(fresh, n)
	}
	require.NoError(t, mem.UpsertNotes(ctx, project, fresh))
	steps := 0
	require.NoError(t, other.UpsertNotesStaged(ctx, project, fresh, func(int) {
		steps++
		if cat := s.catalog(project); cat != nil {
			s.advanceCatalog(ctx, project, cat)
		}
	}))
	require.Greater(t, steps, 5, "the staged write took several steps")
	comparePaths(s, "right after a staged write", false)
	waitCurrentLinks(t, s, project)
	comparePaths(s, "caught up with a staged write", true)
	e := s.catalogEntry(project)
	s.catalogs.mu.Lock()
	loads := e.loads
	s.catalogs.mu.Unlock()
	assert.Equal(t, 1, loads, "the catalog followed every write without loading again")

	// A restart: a new Store loads the links.
	restarted := openStore(t)
	restarted.linksPage = 16
	waitCurrentLinks(t, restarted, project)
	comparePaths(restarted, "restarted", true)
}

// get_hubs by degree answers again from the last answer while the change
// counter has not moved, and reads the degrees again after a write by
// this Store or another one: always what memstore answers.
func TestHubAnswersFollowWrites(t *testing.T) {
	t.Parallel()
	log := &statementLog{}
	s := openStoreWith(t, func(c *Config) { c.Logger = slog.New(log) })
	other := openStore(t)
	ctx := t.Context()
	project := fmt.Sprintf("hubs-%d", rand.Uint64())
	notes := graphSpec{notes: 120, seed: 4, avgLinks: 3, preferHubs: 0.6, components: 1}.generate()
	mem := memstore.New()
	for _, st := range []core.GraphWriter{mem, other} {
		require.NoError(t, st.UpsertNotes(ctx, project, notes))
	}
	compare := func(stage string) {
		t.Helper()
		for _, metric := range []core.HubMetric{core.MetricInDegree, core.MetricOutDegree} {
			for _, limit := range []int{1, 5, 0} {
				want, err := mem.Hubs(ctx, project, metric, limit)
				require.NoError(t, err)
				got, err := s.Hubs(ctx, project, metric, limit)
				require.NoError(t, err)
				assert.Equal(t, want, got, "%s: %s limit %d", stage, metric, limit)
			}
		}
	}
	reads := func() int { return log.count("hubs_in_degree") + log.count("hubs_out_degree") }
	compare("first")
	first := reads()
	compare("again")
	assert.Equal(t, first, reads(), "unchanged counter: the last answers")

	// Another replica makes a new top hub; then this Store deletes it.
	var linkers []core.Note
	for i := range 40 {
		n := notes[i]
		n.Links = append(slices.Clone(n.Links), core.Link{Raw: "[[top]]", Key: "top", Target: "top.md"})
		linkers = append(linkers, n)
	}
	top := core.Note{ID: "top.md", Title: "Top", Hash: "t", Keys: []string{"top"}}
	for _, st := range []core.GraphWriter{mem, other} {
		require.NoError(t, st.UpsertNotes(ctx, project, append([]core.Note{top}, linkers...)))
	}
	compare("after another replica's write")
	assert.Greater(t, reads(), first, "read again after the write")
	for _, st := range []core.GraphWriter{mem, s} {
		_, err := st.DeleteNotes(ctx, project, []string{"top.md"})
		require.NoError(t, err)
	}
	compare("after its own delete")
	after := reads()
	compare("again after the writes")
	assert.Equal(t, after, reads())
}
