package storetest

import (
	"fmt"
	"slices"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// stagedCases hold for a store that takes large writes in stages
// (core.StagedWriter); a store without it skips them.
var stagedCases = []testCase{
	{"a staged write leaves the graph as one upsert of the same notes would", func(e *env) {
		staged, ok := e.store.(core.StagedWriter)
		if !ok {
			e.t.Skip("the store has no staged write (core.StagedWriter)")
		}
		notes, first, write := stagedFixture()
		one, inStages := e.project(), e.project()
		e.upsert(one, first...)
		e.upsert(inStages, first...)
		e.upsert(one, write...)
		reported := 0
		require.NoError(e.t, staged.UpsertNotesStaged(e.ctx, inStages, write, func(n int) { reported += n }))
		assert.Equal(e.t, len(write), reported, "progress adds up to the notes given")
		e.sameStagedGraph(one, inStages, notes)
	}},
	{"a staged write given in parts leaves the graph as one upsert would", func(e *env) {
		streamer, ok := e.store.(core.StagedStreamer)
		if !ok {
			e.t.Skip("the store takes no staged write in parts (core.StagedStreamer)")
		}
		// Parts of uneven sizes: links into later parts, a link to a
		// note that never comes, the repeated ID in another part than
		// its first version.
		notes, first, write := stagedFixture()
		one, inParts := e.project(), e.project()
		e.upsert(one, first...)
		e.upsert(inParts, first...)
		e.upsert(one, write...)
		reported := 0
		st, err := streamer.BeginStaged(e.ctx, inParts, func(n int) { reported += n })
		require.NoError(e.t, err)
		for _, part := range splitAt(write, 1, 60, 61, 250, 520) {
			require.NoError(e.t, st.Write(e.ctx, part))
		}
		require.NoError(e.t, st.Finish(e.ctx))
		assert.Equal(e.t, len(write), reported, "progress adds up to the notes given")
		e.sameStagedGraph(one, inParts, notes)
		require.Error(e.t, st.Write(e.ctx, write[:1]), "a finished stream takes no more notes")
	}},
	{"a staged write abandoned between parts is completed by writing the notes again", func(e *env) {
		streamer, ok := e.store.(core.StagedStreamer)
		if !ok {
			e.t.Skip("the store takes no staged write in parts (core.StagedStreamer)")
		}
		// A sync killed after two parts: their new notes are stored
		// without links and with an empty hash, so the next sync rewrites
		// them; it writes every note again, in one staged write.
		notes, first, write := stagedFixture()
		one, cut := e.project(), e.project()
		e.upsert(one, first...)
		e.upsert(cut, first...)
		e.upsert(one, write...)
		st, err := streamer.BeginStaged(e.ctx, cut, nil)
		require.NoError(e.t, err)
		parts := splitAt(write, 200, 400)
		require.NoError(e.t, st.Write(e.ctx, parts[0]))
		require.NoError(e.t, st.Write(e.ctx, parts[1]))
		hashes := e.hashes(cut)
		for _, n := range parts[0] {
			assert.Empty(e.t, hashes[n.ID], "a note of an unfinished stream has an empty hash: %s", n.ID)
		}
		require.NoError(e.t, streamer.UpsertNotesStaged(e.ctx, cut, write, nil))
		e.sameStagedGraph(one, cut, notes)
	}},
}

// splitAt cuts notes before each of the given indexes.
func splitAt(notes []core.Note, at ...int) [][]core.Note {
	var out [][]core.Note
	start := 0
	for _, i := range append(at, len(notes)) {
		out = append(out, notes[start:i])
		start = i
	}
	return out
}

// sameStagedGraph checks that project got holds the graph of project want
// over notes (stagedFixture): notes, neighbours, degrees, hashes, the
// notes hanging on unresolved keys, tags.
func (e *env) sameStagedGraph(want, got string, notes []core.Note) {
	e.t.Helper()
	for _, n := range notes {
		w, g := e.get(want, n.ID), e.get(got, n.ID)
		w.Project = got
		require.NoError(e.t, CompareNotes(w, g), n.ID)
		require.Equal(e.t, e.neighbors(want, n.ID, core.DirectionBoth, 0), e.neighbors(got, n.ID, core.DirectionBoth, 0), n.ID)
		require.Equal(e.t, e.degree(want, n.ID), e.degree(got, n.ID), n.ID)
	}
	assert.Equal(e.t, e.hashes(want), e.hashes(got))
	assert.Equal(e.t, e.unresolvedLinkers(want, "nobody", "shared"), e.unresolvedLinkers(got, "nobody", "shared"))
	for _, tag := range []string{"t1", "rewritten", "the later one"} {
		assert.Equal(e.t, noteIDs(e.byTags(want, []string{tag}, core.TagModeAny, 1000)), noteIDs(e.byTags(got, []string{tag}, core.TagModeAny, 1000)), tag)
	}
}

// stagedFixture is a staged write's test data: notes written before
// (first, the notes[:150] as the vault would send them), then a write of
// new notes (linking to each other, forward and back, to the notes before,
// to keys nobody claims, to a key two of them claim and to a note that
// never comes, by a key one of them claims), of some notes before with
// their text unchanged and new tags, and of one ID twice (the later wins).
// notes are every note, as the graph ends up.
func stagedFixture() (notes, first, write []core.Note) {
	var firstLater string
	const before, total = 150, 700
	notes = make([]core.Note, total)
	for i := range notes {
		id := fmt.Sprintf("n%04d.md", i)
		var links []core.Link
		for _, t := range []int{(i * 7) % total, (i*13 + 5) % total, (i + 1) % total} {
			links = append(links, linkTo(fmt.Sprintf("n%04d.md", t)))
		}
		if i%17 == 0 {
			links = append(links, ghost("nobody"))
		}
		if i%11 == 0 {
			links = append(links, ghost("shared"))
		}
		notes[i] = withTags(mkNote(id, links...), fmt.Sprintf("t%d", i%5))
		if i == 420 || i == 433 {
			notes[i].Keys = append(notes[i].Keys, "shared")
		}
		if i == 500 {
			notes[i].Links = append(notes[i].Links, core.Link{Raw: "[[shared]]", Key: "shared", Target: "gone.md"})
		}
	}
	// Links into notes not written yet are unresolved until then, as
	// the vault sends them: their targets are unknown.
	first, firstLater = slices.Clone(notes[:before]), notes[before].ID
	for i := range first {
		first[i].Links = slices.Clone(first[i].Links)
		for j := range first[i].Links {
			if first[i].Links[j].Target >= firstLater {
				first[i].Links[j].Target = ""
			}
		}
	}
	write = slices.Clone(notes[before:])
	for _, n := range notes[100:before] {
		write = append(write, withTags(n, "rewritten"))
	}
	later := write[3]
	later.Tags = []string{"the later one"}
	write = append(write, later)
	return notes, first, write
}

func (e *env) hashes(project string) map[string]string {
	e.t.Helper()
	h, err := e.store.NoteHashes(e.ctx, project)
	require.NoError(e.t, err, "note hashes")
	return h
}
