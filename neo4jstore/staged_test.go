package neo4jstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// tinyStages makes a staged write of a few hundred notes take many
// transactions in every stage, with two stage-1 writers.
var tinyStages = stagedSizes{notes: 13, bytes: 2 << 10, links: 17, probe: 29, writers: 2}

// A staged write must leave the graph exactly as one UpsertNotes of the
// same notes would: here memstore takes them as one batch while Neo4j
// writes them in stages, on top of notes that existed before (some of them
// rewritten by the staged write, some hanging on ghosts the new notes
// claim), and every read must agree.
func TestStagedWriteSameAsOneBatch(t *testing.T) {
	t.Parallel()
	neo := openStore(t)
	neo.staged = tinyStages
	for _, seed := range []uint64{4, 5} {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			spec := graphSpec{notes: 260, seed: seed, avgLinks: 4, preferHubs: 0.5, selfLinks: 0.05,
				ghosts: 0.1, components: 2, tags: 6, content: 300, oddIDs: true}
			mem := memstore.New()
			project := fmt.Sprintf("staged-%d-%d", seed, rand.Uint64())
			d := &differ{t: t, ctx: t.Context(), project: project, stores: [2]core.StoreProvider{mem, neo}}

			notes := spec.generate()
			before := notes[:70] // their links into the rest are ghosts until the staged write
			d.upsert(before)

			staged := slices.Clone(notes[70:])
			for _, n := range before[:15] { // rewritten by the staged write
				n.Tags = append(slices.Clone(n.Tags), "rewritten")
				n.Hash += "-2"
				staged = append(staged, n)
			}
			require.NoError(t, mem.UpsertNotes(t.Context(), project, staged))
			var reported atomic.Int64
			require.NoError(t, neo.UpsertNotesStaged(t.Context(), project, staged, func(n int) { reported.Add(int64(n)) }))
			assert.Equal(t, int64(len(staged)), reported.Load(), "progress adds up to the notes written")

			for i := range notes[:15] {
				notes[i] = staged[len(staged)-15+i]
			}
			d.compareAll(notes, seed)
		})
	}
}

// A staged write cut off after its notes are created but before their
// links are drawn leaves those notes with an empty hash, so the next sync
// rewrites them; writing the same notes again then completes the graph.
func TestStagedWriteInterruptedThenRepeated(t *testing.T) {
	t.Parallel()
	spec := graphSpec{notes: 200, seed: 9, avgLinks: 3, preferHubs: 0.5, ghosts: 0.1, components: 1, tags: 4, content: 100}
	neo, mem, d, notes := stagedFixture(t, spec)
	project := d.project

	// Cut once half the notes are reported: stage 1 reports a third of
	// the notes, so the cut comes in stage 2, with every note created and
	// some of them linked (those have their hash).
	cutStagedWrite(t, neo, project, notes, len(notes)/2)

	hashes, err := neo.NoteHashes(t.Context(), project)
	require.NoError(t, err)
	require.NotEmpty(t, hashes, "stage 1 wrote notes before the cut")
	unlinked := 0
	for id, h := range hashes {
		n := notes[slices.IndexFunc(notes, func(n core.Note) bool { return n.ID == id })]
		if h != n.Hash {
			assert.Empty(t, h, "note %s without its links has no hash", id)
			unlinked++
		}
	}
	assert.Positive(t, unlinked, "some notes were cut off before their links")

	// Some cut-off notes leave the vault before the next sync: deleting
	// them must leave the in-degrees their unwritten links counted right.
	var gone []string
	for id, h := range hashes {
		if h == "" && len(gone) < 5 {
			gone = append(gone, id)
		}
	}
	rest := slices.DeleteFunc(slices.Clone(notes), func(n core.Note) bool { return slices.Contains(gone, n.ID) })
	require.NoError(t, mem.UpsertNotes(t.Context(), project, rest))
	_, err = neo.DeleteNotes(t.Context(), project, gone)
	require.NoError(t, err)
	require.NoError(t, neo.UpsertNotesStaged(t.Context(), project, rest, nil))
	d.compareAll(rest, 9)
}

func TestChunkNotes(t *testing.T) {
	t.Parallel()
	note := func(size int) core.Note { return core.Note{Content: string(make([]byte, size))} }
	notes := []core.Note{note(10), note(10), note(10), note(50), note(1), note(1), note(1)}
	var sizes []int
	for _, c := range chunkNotes(notes, 3, 25) {
		sizes = append(sizes, len(c))
	}
	assert.Equal(t, []int{2, 1, 1, 3}, sizes, "by bytes (25), a note alone over it, then by count (3)")
	assert.Empty(t, chunkNotes(nil, 3, 25))
}

// A staged write cut off after its links (hashes set) but before the
// in-degrees are recounted leaves nothing for a sync to rewrite; the next
// NoteHashes, where every sync starts, recounts the project's degrees.
func TestStagedWriteCutBeforeRecountIsRepaired(t *testing.T) {
	t.Parallel()
	spec := graphSpec{notes: 180, seed: 10, avgLinks: 4, preferHubs: 0.6, ghosts: 0.1, components: 1, tags: 4, content: 100}
	neo, mem, d, notes := stagedFixture(t, spec)
	project := d.project

	// Stages 1 and 2 report two thirds of the notes: cut there.
	cutStagedWrite(t, neo, project, notes, 2*len(notes)/3)
	hubs, err := neo.Hubs(t.Context(), project, core.MetricInDegree, 1)
	require.NoError(t, err)
	require.Len(t, hubs, 1)
	assert.Zero(t, hubs[0].Score, "before the repair no in-degree is counted")

	require.NoError(t, mem.UpsertNotes(t.Context(), project, notes))
	hashes, err := neo.NoteHashes(t.Context(), project) // repairs
	require.NoError(t, err)
	for _, n := range notes {
		assert.Equal(t, n.Hash, hashes[n.ID], "note %s is complete: a sync would not rewrite it", n.ID)
	}
	d.compareAll(notes, 10)
}

// stagedFixture returns a Store with tinyStages, memstore, a differ over
// both on a fresh project, and spec's notes.
func stagedFixture(t *testing.T, spec graphSpec) (*Neo4jStore, *memstore.Store, *differ, []core.Note) {
	t.Helper()
	neo := openStore(t)
	neo.staged = tinyStages
	mem := memstore.New()
	project := fmt.Sprintf("staged-%d-%d", spec.seed, rand.Uint64())
	return neo, mem, &differ{t: t, ctx: t.Context(), project: project, stores: [2]core.StoreProvider{mem, neo}}, spec.generate()
}

// cutStagedWrite runs a staged write of notes and cancels it once progress
// has reported at notes; the write must fail.
func cutStagedWrite(t *testing.T, neo *Neo4jStore, project string, notes []core.Note, at int) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var reported atomic.Int64
	err := neo.UpsertNotesStaged(ctx, project, notes, func(n int) {
		if reported.Add(int64(n)) >= int64(at) {
			cancel()
		}
	})
	require.Error(t, err, "the cut-off write reports failure")
}

// Notes that existed and are rewritten by a staged write go in batches
// (stage 4); when two of them, in different batches, claim the key of an
// older ghost, the smallest ID wins, as in one batch, whatever the order
// the notes were given in.
func TestStagedWriteOldClaimantsSmallestIDWins(t *testing.T) {
	t.Parallel()
	neo := openStore(t)
	neo.staged = tinyStages // stage 4 batches of 13 notes
	project := fmt.Sprintf("staged-claims-%d", rand.Uint64())
	ctx := t.Context()

	linker := core.Note{ID: "linker.md", Title: "linker", Links: []core.Link{{Raw: "[[k]]", Key: "k"}}, Hash: "h", Keys: []string{"linker"}}
	old := []core.Note{{ID: "z.md", Title: "z", Hash: "h", Keys: []string{"z"}}}
	for i := range 20 {
		old = append(old, core.Note{ID: fmt.Sprintf("m%02d.md", i), Title: "m", Hash: "h", Keys: []string{fmt.Sprintf("m%02d", i)}})
	}
	old = append(old, core.Note{ID: "a.md", Title: "a", Hash: "h", Keys: []string{"a"}})
	require.NoError(t, neo.UpsertNotes(ctx, project, append([]core.Note{linker}, old...)))

	// Rewritten: z.md first and a.md last, both now claiming "k", with a
	// new note so that the write is staged.
	rewritten := slices.Clone(old)
	rewritten[0].Keys = []string{"z", "k"}
	rewritten[len(rewritten)-1].Keys = []string{"a", "k"}
	for i := range rewritten {
		rewritten[i].Hash = "h2"
	}
	write := append([]core.Note{{ID: "new.md", Title: "new", Hash: "h", Keys: []string{"new"}}}, rewritten...)
	require.NoError(t, neo.UpsertNotesStaged(ctx, project, write, nil))

	got, err := neo.GetNote(ctx, project, "linker.md")
	require.NoError(t, err)
	require.Len(t, got.Links, 1)
	assert.Equal(t, "a.md", got.Links[0].Target, "the smallest ID claiming the key wins, as in one batch")
}
