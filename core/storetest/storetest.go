// Package storetest is the contract suite that every core.StoreProvider runs. A
// behaviour of the store interfaces exists only once it is tested here:
// memstore runs the suite in its unit tests, neo4jstore against a real
// database.
//
// The suite asks the factory for a store in every subtest and writes only to
// projects of its own, named after the test plus a random suffix, so it can
// share one database with other tests and run subtests in parallel. It never
// closes the store: the factory owns its lifetime (t.Cleanup). Each subtest
// writes at most a few hundred notes, so it stays quick over a network.
//
// Where core's doc comments leave room, the suite pins one reading down:
//   - A link written with a Target that does not exist after the batch comes
//     back with Target "" (it is stored unresolved), and a link resolved
//     later by a note claiming its Key comes back with that note's ID, as
//     does every link from GetNote, Neighbors, NotesByTags and RandomNote.
//   - Links to a deleted note come back with Target "" and their Key.
//   - A self-link makes a note its own out- and in-neighbour; with
//     DirectionBoth it is listed once, as outgoing.
//   - ShortestPath(x, x) is [x] for an existing note even without a
//     self-link, and nil for a missing one.
//   - RandomNote never calls pick when there is no candidate.
//   - An UpsertNotes that returns an error (here: a cancelled context)
//     leaves the project as it was.
//   - IDs are case-sensitive: "Notes/A.md" and "notes/a.md" are two notes.
//   - Hubs by PageRank may lag the latest writes (core.GraphReader.Hubs),
//     but only with a call warning: every PageRank check asks until an
//     answer comes without one (within pageRankCatchUp) and checks that.
//
// Left open by the contract and so not tested: what limit <= 0 means for
// Hubs and NotesByTags, invalid Direction/HubMetric/TagMode values, an ID
// repeated in one UpsertNotes batch, and a pick result outside [0, n).
// See CompareNotes for how returned notes are compared.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// Options tunes RunWithOptions.
type Options struct {
	// Parallel marks every subtest t.Parallel. Safe because subtests never
	// share a project; turn it on when the store copes with concurrent
	// writers to different projects.
	Parallel bool
}

// Run runs the whole contract suite with default Options.
func Run(t *testing.T, newStore func(t *testing.T) core.StoreProvider) {
	RunWithOptions(t, newStore, Options{})
}

// RunWithOptions runs the whole contract suite. newStore is called once per
// subtest; it may return the same shared store every time.
func RunWithOptions(t *testing.T, newStore func(t *testing.T) core.StoreProvider, opts Options) {
	groups := []struct {
		name  string
		cases []testCase
	}{
		{"reads", readCases},
		{"note states", stateCases},
		{"neighbours and degree", neighborCases},
		{"attachments and canvases", fileNodeCases},
		{"note context", contextCases},
		{"views", viewCases},
		{"shortest path", pathCases},
		{"hubs", hubCases},
		{"tags and random notes", tagCases},
		{"writes", writeCases},
		{"staged writes", stagedCases},
		{"deletes", deleteCases},
		{"projects", isolationCases},
		{"sync origins", syncOriginCases},
		{"entities", entityCases},
		{"concurrency", concurrencyCases},
		{"chunks", chunkCases},
		{"memories", memoryCases},
		{"search", searchCases},
		{"change log", changeCases},
		{"warm-up", warmCases},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			if opts.Parallel {
				t.Parallel()
			}
			for _, c := range g.cases {
				t.Run(c.name, func(t *testing.T) {
					if opts.Parallel {
						t.Parallel()
					}
					c.run(&env{t: t, ctx: t.Context(), store: newStore(t)})
				})
			}
		})
	}
}

// testCase is one behaviour of the contract, named as a sentence.
type testCase struct {
	name string
	run  func(e *env)
}

// env is what a test case works with: its store, context and helpers that
// fail the test on unexpected errors.
type env struct {
	t     *testing.T
	ctx   context.Context
	store core.StoreProvider
}

// project returns a fresh project name, unique across runs and processes,
// so that tests sharing one database never see each other's data.
func (e *env) project() string {
	e.t.Helper()
	var suffix [6]byte
	_, err := rand.Read(suffix[:])
	require.NoError(e.t, err)
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + ('a' - 'A')
		default:
			return '-'
		}
	}, e.t.Name())
	if len(name) > 48 {
		name = name[len(name)-48:]
	}
	return "storetest-" + name + "-" + hex.EncodeToString(suffix[:])
}

func (e *env) upsert(project string, notes ...core.Note) {
	e.t.Helper()
	require.NoError(e.t, e.store.UpsertNotes(e.ctx, project, notes), "upsert notes")
}

func (e *env) delete(project string, ids ...string) int {
	e.t.Helper()
	n, err := e.store.DeleteNotes(e.ctx, project, ids)
	require.NoError(e.t, err, "delete notes %v", ids)
	return n
}

func (e *env) get(project, id string) core.Note {
	e.t.Helper()
	n, err := e.store.GetNote(e.ctx, project, id)
	require.NoError(e.t, err, "get note %s", id)
	require.NotNil(e.t, n, "get note %s", id)
	return *n
}

// neighbors returns "out:id" / "in:id" strings, which make failures readable.
func (e *env) neighbors(project, id string, dir core.Direction, limit int) []string {
	e.t.Helper()
	ns, err := e.store.Neighbors(e.ctx, project, id, dir, limit)
	require.NoError(e.t, err, "neighbours of %s", id)
	return neighborKeys(ns)
}

func (e *env) degree(project, id string) core.Degree {
	e.t.Helper()
	d, err := e.store.Degree(e.ctx, project, id)
	require.NoError(e.t, err, "degree of %s", id)
	return d
}

func (e *env) path(project, from, to string) []string {
	e.t.Helper()
	p, err := e.store.ShortestPath(e.ctx, project, from, to)
	require.NoError(e.t, err, "shortest path %s -> %s", from, to)
	return p
}

// pageRankCatchUp bounds how long a store's PageRank may lag the writes
// before it: the background computation of a small graph takes
// milliseconds; this leaves room for a busy machine.
const pageRankCatchUp = time.Minute

// hubs returns the hubs by metric; for PageRank, the first answer that
// carries no warning, i.e. reflects every write before the call.
func (e *env) hubs(project string, metric core.HubMetric, limit int) []core.Hub {
	e.t.Helper()
	deadline := time.Now().Add(pageRankCatchUp)
	for {
		ctx, warnings := core.WithCallWarnings(e.ctx)
		h, err := e.store.Hubs(ctx, project, metric, limit)
		require.NoError(e.t, err, "hubs by %s", metric)
		w := warnings.List()
		if len(w) == 0 {
			return h
		}
		require.Equal(e.t, core.MetricPageRank, metric, "only PageRank may lag the writes: %v", w)
		require.True(e.t, time.Now().Before(deadline), "PageRank still lags the writes after %s: %v", pageRankCatchUp, w)
		time.Sleep(10 * time.Millisecond)
	}
}

func (e *env) byTags(project string, tags []string, mode core.TagMode, limit int) []core.Note {
	e.t.Helper()
	notes, err := e.store.NotesByTags(e.ctx, project, tags, mode, limit)
	require.NoError(e.t, err, "notes by tags %v %s", tags, mode)
	return notes
}

func (e *env) unresolvedLinkers(project string, keys ...string) []string {
	e.t.Helper()
	ids, err := e.store.UnresolvedLinkers(e.ctx, project, keys)
	require.NoError(e.t, err, "unresolved linkers of %v", keys)
	return ids
}

func (e *env) count(project string) int {
	e.t.Helper()
	n, err := e.store.CountNotes(e.ctx, project)
	require.NoError(e.t, err, "count notes")
	return n
}

// Note builders. A note "x.md" has the link key "x", the title "Title x.md"
// and content naming it, so any mix-up between notes shows.

// baseTime is a ModTime with sub-millisecond digits and a zone, to catch
// stores that drop either.
var baseTime = time.Date(2024, 3, 4, 5, 6, 7, 891_234_567, time.FixedZone("CET", 3600))

func keyOf(id string) string { return strings.TrimSuffix(id, ".md") }

func mkNote(id string, links ...core.Link) core.Note {
	return core.Note{
		ID:      id,
		Title:   "Title " + id,
		Path:    id,
		Content: "Content of " + id,
		Links:   links,
		Hash:    "hash-" + id,
		Size:    int64(100 + len(id)),
		ModTime: baseTime,
		Keys:    []string{keyOf(id)},
	}
}

func withTags(n core.Note, tags ...string) core.Note {
	n.Tags = tags
	return n
}

// linkTo is a resolved link to id, written [[key]].
func linkTo(id string) core.Link {
	return core.Link{Raw: "[[" + keyOf(id) + "]]", Key: keyOf(id), Target: id}
}

// ghost is an unresolved link with the given key.
func ghost(key string) core.Link {
	return core.Link{Raw: "[[" + key + "]]", Key: key}
}

// chain links each note to the next: chain("a", "b", "c") is a→b→c.
func chain(ids ...string) []core.Note {
	notes := make([]core.Note, len(ids))
	for i, id := range ids {
		notes[i] = mkNote(id)
		if i+1 < len(ids) {
			notes[i].Links = []core.Link{linkTo(ids[i+1])}
		}
	}
	return notes
}

// graphNotes builds notes from an adjacency list; every node mentioned
// becomes a note, links are written in the order given.
func graphNotes(adj map[string][]string) []core.Note {
	seen := map[string]bool{}
	var ids []string
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for src, dsts := range adj {
		add(src)
		for _, d := range dsts {
			add(d)
		}
	}
	notes := make([]core.Note, 0, len(ids))
	for _, id := range ids {
		n := mkNote(id)
		for _, d := range adj[id] {
			n.Links = append(n.Links, linkTo(d))
		}
		notes = append(notes, n)
	}
	return notes
}

func noteIDs(notes []core.Note) []string {
	ids := make([]string, len(notes))
	for i, n := range notes {
		ids[i] = n.ID
	}
	return ids
}

func neighborKeys(ns []core.Neighbor) []string {
	keys := make([]string, len(ns))
	for i, n := range ns {
		keys[i] = string(n.Direction) + ":" + n.Note.ID
	}
	return keys
}

func hubIDs(hubs []core.Hub) []string {
	ids := make([]string, len(hubs))
	for i, h := range hubs {
		ids[i] = h.ID
	}
	return ids
}
