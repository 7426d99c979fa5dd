package neo4jstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/core/storetest"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// The differential test builds the same random graphs (seeded: cycles,
// self-links, unresolved links, disconnected parts, IDs whose order differs
// between byte and UTF-16 comparison) in memstore and in Neo4j, changes them
// the same way, and requires identical answers from every read.
func TestSameAnswersAsMemstore(t *testing.T) {
	t.Parallel()
	neo := openStore(t)
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			t.Parallel()
			spec := graphSpec{notes: 240, seed: seed, avgLinks: 3, preferHubs: 0.5, selfLinks: 0.05,
				ghosts: 0.1, components: 3, tags: 8, content: 40, oddIDs: true}
			mem := memstore.New()
			project := fmt.Sprintf("differential-%d-%d", seed, rand.Uint64())
			d := &differ{t: t, ctx: t.Context(), project: project, stores: [2]core.StoreProvider{mem, neo}}

			notes := spec.generate()
			for batch := range slices.Chunk(notes, 50) { // links across batches resolve later
				d.upsert(batch)
			}
			d.compareAll(notes, spec.seed)

			// Change the graph: delete some notes, rewrite others' links,
			// then bring some deleted notes back.
			rng := rand.New(rand.NewPCG(seed, 7))
			var deleted []string
			for range 25 {
				deleted = append(deleted, notes[rng.IntN(len(notes))].ID)
			}
			d.delete(deleted)
			var rewritten []core.Note
			for range 25 {
				n := notes[rng.IntN(len(notes))]
				if rng.IntN(2) == 0 && len(n.Links) > 0 {
					n.Links = n.Links[1:]
				} else {
					other := notes[rng.IntN(len(notes))].ID
					n.Links = append(slices.Clone(n.Links), core.Link{Raw: "[[" + keyFor(other) + "]]", Key: keyFor(other), Target: other})
				}
				n.Tags = append(slices.Clone(n.Tags), "rewritten")
				rewritten = append(rewritten, n)
			}
			d.upsert(rewritten)
			var back []core.Note
			for _, n := range notes[:40] {
				if slices.Contains(deleted, n.ID) {
					back = append(back, n)
				}
			}
			d.upsert(back)
			d.compareAll(notes, spec.seed+100)
		})
	}
}

// differ runs one call on both stores and compares the answers; stores[0]
// is the reference (memstore).
type differ struct {
	t       *testing.T
	ctx     context.Context
	project string
	stores  [2]core.StoreProvider
}

func (d *differ) upsert(notes []core.Note) {
	for _, s := range d.stores {
		require.NoError(d.t, s.UpsertNotes(d.ctx, d.project, notes))
	}
}

func (d *differ) delete(ids []string) {
	var counts [2]int
	for i, s := range d.stores {
		n, err := s.DeleteNotes(d.ctx, d.project, ids)
		require.NoError(d.t, err)
		counts[i] = n
	}
	assert.Equal(d.t, counts[0], counts[1], "deleted counts")
}

// each calls f on both stores and returns the two answers.
func each[T any](d *differ, f func(core.StoreProvider) (T, error)) (want, got T) {
	d.t.Helper()
	var err error
	want, err = f(d.stores[0])
	require.NoError(d.t, err, "memstore")
	got, err = f(d.stores[1])
	require.NoError(d.t, err, "neo4jstore")
	return want, got
}

func (d *differ) compareAll(notes []core.Note, seed uint64) {
	t, ctx, p := d.t, d.ctx, d.project
	ids := make([]string, len(notes))
	for i, n := range notes {
		ids[i] = n.ID
	}

	wantCount, gotCount := each(d, func(s core.StoreProvider) (int, error) { return s.CountNotes(ctx, p) })
	assert.Equal(t, wantCount, gotCount, "count")
	wantHashes, gotHashes := each(d, func(s core.StoreProvider) (map[string]string, error) { return s.NoteHashes(ctx, p) })
	assert.Equal(t, wantHashes, gotHashes, "hashes")

	wantNotes, gotNotes := each(d, func(s core.StoreProvider) ([]core.Note, error) { return s.GetNotes(ctx, p, ids) })
	require.Len(t, gotNotes, len(wantNotes), "GetNotes")
	for i := range wantNotes {
		assert.NoError(t, storetest.CompareNotes(wantNotes[i], gotNotes[i]))
	}

	for _, id := range ids {
		for _, dir := range []core.Direction{core.DirectionOut, core.DirectionIn, core.DirectionBoth} {
			for _, limit := range []int{0, 3} {
				w, g := each(d, func(s core.StoreProvider) ([]string, error) {
					ns, err := s.Neighbors(ctx, p, id, dir, limit)
					return neighborStrings(ns), err
				})
				assert.Equal(t, w, g, "neighbours of %s %s limit %d", id, dir, limit)
			}
		}
		w, g := each(d, func(s core.StoreProvider) (string, error) {
			deg, err := s.Degree(ctx, p, id)
			if errors.Is(err, core.ErrNotFound) {
				return "missing", nil
			}
			return fmt.Sprint(deg), err
		})
		assert.Equal(t, w, g, "degree of %s", id)
		d.compareContext(id)
	}

	rng := rand.New(rand.NewPCG(seed, 11))
	for range 400 {
		from, to := ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))]
		w, g := each(d, func(s core.StoreProvider) ([]string, error) { return s.ShortestPath(ctx, p, from, to) })
		assert.Equal(t, w, g, "path %s -> %s", from, to)
	}

	for _, metric := range []core.HubMetric{core.MetricInDegree, core.MetricOutDegree, core.MetricPageRank} {
		w, g := each(d, func(s core.StoreProvider) ([]core.Hub, error) { return currentHubs(ctx, s, p, metric, 0) })
		require.Len(t, g, len(w), "hubs by %s", metric)
		for i := range w {
			assert.Equal(t, w[i].ID, g[i].ID, "hubs by %s: rank %d", metric, i)
			assert.Equal(t, w[i].Title, g[i].Title, "hubs by %s: title of rank %d", metric, i)
			assert.LessOrEqual(t, math.Abs(w[i].Score-g[i].Score), 1e-9, "hubs by %s: score of %s", metric, w[i].ID)
		}
		wTop, gTop := each(d, func(s core.StoreProvider) ([]string, error) {
			h, err := currentHubs(ctx, s, p, metric, 5)
			return hubIDs(h), err
		})
		assert.Equal(t, wTop, gTop, "top 5 hubs by %s", metric)
	}

	tagSets := [][]string{{"tag0"}, {"TAG1", "#tag2"}, {"tag0", "tag1"}, {"rewritten"}, {"rewritten", "tag3"}, {"none"}}
	for _, tags := range tagSets {
		for _, mode := range []core.TagMode{core.TagModeAny, core.TagModeAll} {
			for _, limit := range []int{0, 5} {
				w, g := each(d, func(s core.StoreProvider) ([]string, error) {
					ns, err := s.NotesByTags(ctx, p, tags, mode, limit)
					return noteIDsOf(ns), err
				})
				assert.Equal(t, w, g, "notes by tags %v %s limit %d", tags, mode, limit)
			}
		}
		for _, k := range []int{0, 1, 7, 1000} {
			w, g := each(d, func(s core.StoreProvider) (string, error) {
				n, err := s.RandomNote(ctx, p, tags, func(n int) int { return min(k, n-1) })
				if n == nil {
					return "none", err
				}
				return n.ID, err
			})
			assert.Equal(t, w, g, "random note with %v, pick %d", tags, k)
		}
	}

	keys := []string{}
	for i := range 30 {
		keys = append(keys, fmt.Sprintf("ghost-%d", i), keyFor(ids[i]))
	}
	w, g := each(d, func(s core.StoreProvider) ([]string, error) { return s.UnresolvedLinkers(ctx, p, keys) })
	assert.Equal(t, w, g, "unresolved linkers")
}

func neighborStrings(ns []core.Neighbor) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = string(n.Direction) + ":" + n.Note.ID
	}
	return out
}

// viewStrings is neighborStrings of views.
func viewStrings(ns []core.NeighborView) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = string(n.Direction) + ":" + n.ID
	}
	return out
}

// sameViews compares views as a client sees them: content cut to
// core.ContextContentChars (a store may cut a neighbour's there), no tags
// or links the same as empty lists.
func sameViews(t *testing.T, want, got []core.NodeView, msgAndArgs ...any) {
	t.Helper()
	norm := func(vs []core.NodeView) []core.NodeView {
		out := make([]core.NodeView, len(vs))
		for i, v := range vs {
			v.Content = core.TruncateContent(v.Content, core.ContextContentChars)
			if len(v.Tags) == 0 {
				v.Tags = nil
			}
			if len(v.Links) == 0 {
				v.Links = nil
			}
			out[i] = v
		}
		return out
	}
	assert.Equal(t, norm(want), norm(got), msgAndArgs...)
}

// currentHubs asks s for hubs until an answer reflects every write (comes
// without a warning; PageRank may lag, see core.GraphReader.Hubs).
func currentHubs(ctx context.Context, s core.GraphReader, project string, metric core.HubMetric, limit int) ([]core.Hub, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		wctx, warnings := core.WithCallWarnings(ctx)
		h, err := s.Hubs(wctx, project, metric, limit)
		if err != nil || len(warnings.List()) == 0 {
			return h, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("hubs by %s still lag the writes: %v", metric, warnings.List())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func hubIDs(hubs []core.Hub) []string {
	out := make([]string, len(hubs))
	for i, h := range hubs {
		out[i] = h.ID
	}
	return out
}

func noteIDsOf(notes []core.Note) []string {
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = n.ID
	}
	return out
}

// compareContext holds neo4jstore's NoteContext (one statement) to what
// memstore answers with the calls it replaces: GetNote, Neighbors, Degree
// and ResolveTitles of every link target of the notes returned.
func (d *differ) compareContext(id string) {
	t, ctx, p := d.t, d.ctx, d.project
	mem, neo := d.stores[0], d.stores[1].(core.ContextReader)
	for _, dir := range []core.Direction{"", core.DirectionOut, core.DirectionIn, core.DirectionBoth} {
		for _, limit := range []int{0, 3} {
			for _, skip := range []bool{false, true} {
				q := core.ContextQuery{SkipNote: skip, Direction: dir, Limit: limit}
				got, err := neo.NoteContext(ctx, p, id, q)
				note, werr := mem.GetNote(ctx, p, id)
				if errors.Is(werr, core.ErrNotFound) {
					assert.ErrorIs(t, err, core.ErrNotFound, "context of missing %s %+v", id, q)
					continue
				}
				require.NoError(t, werr)
				require.NoError(t, err, "context of %s %+v", id, q)
				titlesOf := func(n core.Note) map[string]string {
					titles, err := mem.ResolveTitles(ctx, p, n.LinkTargets())
					require.NoError(t, err)
					return titles
				}
				if !skip {
					assert.NoError(t, storetest.CompareView(*note, titlesOf(*note), got.Note), "context of %s %+v: note", id, q)
					assert.Equal(t, note.Content, got.Note.Content, "context of %s %+v: content", id, q)
				}
				var neighbors []core.Neighbor
				if dir != "" {
					neighbors, err = mem.Neighbors(ctx, p, id, dir, limit)
					require.NoError(t, err)
				}
				assert.Equal(t, neighborStrings(neighbors), viewStrings(got.Neighbors), "context of %s %+v: neighbours", id, q)
				for i := range min(len(neighbors), len(got.Neighbors)) {
					n := neighbors[i].Note
					assert.NoError(t, storetest.CompareView(n, titlesOf(n), got.Neighbors[i].NodeView), "context of %s %+v: neighbour %s", id, q, n.ID)
				}
				degree, err := mem.Degree(ctx, p, id)
				require.NoError(t, err)
				assert.Equal(t, degree, got.Degree, "context of %s %+v: degree", id, q)
			}
		}
	}
}
