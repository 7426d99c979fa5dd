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
		// Notes written before; then a write of new notes (linking to
		// each other, forward and back, to the notes before, to keys
		// nobody claims and to a key two of them claim), of some notes
		// before with their text unchanged and new tags, and of one ID
		// twice (the later wins).
		const before, total = 150, 700
		notes := make([]core.Note, total)
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
		}
		// Links into notes not written yet are unresolved until then, as
		// the vault sends them: their targets are unknown.
		first, firstLater := slices.Clone(notes[:before]), notes[before].ID
		for i := range first {
			first[i].Links = slices.Clone(first[i].Links)
			for j := range first[i].Links {
				if first[i].Links[j].Target >= firstLater {
					first[i].Links[j].Target = ""
				}
			}
		}
		write := slices.Clone(notes[before:])
		for _, n := range notes[100:before] {
			write = append(write, withTags(n, "rewritten"))
		}
		later := write[3]
		later.Tags = []string{"the later one"}
		write = append(write, later)

		one, inStages := e.project(), e.project()
		e.upsert(one, first...)
		e.upsert(inStages, first...)
		e.upsert(one, write...)
		reported := 0
		require.NoError(e.t, staged.UpsertNotesStaged(e.ctx, inStages, write, func(n int) { reported += n }))
		assert.Equal(e.t, len(write), reported, "progress adds up to the notes given")

		for _, n := range notes {
			want, got := e.get(one, n.ID), e.get(inStages, n.ID)
			want.Project = inStages
			require.NoError(e.t, CompareNotes(want, got), n.ID)
			require.Equal(e.t, e.neighbors(one, n.ID, core.DirectionBoth, 0), e.neighbors(inStages, n.ID, core.DirectionBoth, 0), n.ID)
			require.Equal(e.t, e.degree(one, n.ID), e.degree(inStages, n.ID), n.ID)
		}
		assert.Equal(e.t, e.hashes(one), e.hashes(inStages))
		assert.Equal(e.t, e.unresolvedLinkers(one, "nobody", "shared"), e.unresolvedLinkers(inStages, "nobody", "shared"))
		for _, tag := range []string{"t1", "rewritten", "the later one"} {
			assert.Equal(e.t, noteIDs(e.byTags(one, []string{tag}, core.TagModeAny, 1000)), noteIDs(e.byTags(inStages, []string{tag}, core.TagModeAny, 1000)), tag)
		}
	}},
}

func (e *env) hashes(project string) map[string]string {
	e.t.Helper()
	h, err := e.store.NoteHashes(e.ctx, project)
	require.NoError(e.t, err, "note hashes")
	return h
}
