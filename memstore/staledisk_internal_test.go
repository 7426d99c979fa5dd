package memstore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// A store that loads its search index on use (a one-shot sync) answers
// StaleVectors from the disk, without loading the index, and its answer is
// the one a store that loaded the vectors gives, for any mix of current
// vectors, vectors of another model or of an older text, notes without
// one, vectors of notes that are gone and damaged records; also after
// writes of its own. A search then loads the index.
func TestStaleVectorsFromDiskEqualLoaded(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			ctx, dir := t.Context(), t.TempDir()
			rng := rand.New(rand.NewPCG(seed, 11))
			s, err := Open(dir)
			require.NoError(t, err)
			var notes []core.Note
			for i := range 300 {
				id := fmt.Sprintf("n%03d.md", i)
				notes = append(notes, core.Note{ID: id, Path: id, Title: id, Content: "text " + id, Hash: fmt.Sprint("h", i)})
			}
			require.NoError(t, s.UpsertNotes(ctx, "p", notes))
			var vectors []core.NoteVector
			var others []core.NoteVector
			for i, n := range notes {
				v := core.NoteVector{ID: n.ID, Hash: n.Hash, Vector: []float32{rng.Float32(), 1}}
				switch rng.IntN(5) {
				case 0: // none
					continue
				case 1:
					v.Hash = "older"
				case 2:
					others = append(others, v)
					continue
				}
				if i%7 == 0 {
					v.Vector = nil // a zero vector: recorded without one
				}
				vectors = append(vectors, v)
			}
			require.NoError(t, s.SetNoteVectors(ctx, "p", "m", vectors))
			require.NoError(t, s.SetNoteVectors(ctx, "p", "other", others))
			require.NoError(t, s.SetNoteVectors(ctx, "p", "m", []core.NoteVector{{ID: notes[50].ID, Hash: notes[50].Hash, Vector: []float32{1, 1}}}))
			_, err = s.DeleteNotes(ctx, "p", []string{notes[3].ID, notes[4].ID}) // their vectors may stay parked
			require.NoError(t, err)
			require.NoError(t, s.Close(ctx))
			damageState(t, dir, func(tx *kv.Tx) error {
				for range 3 {
					id := notes[5+rng.IntN(len(notes)-5)].ID
					if err := tx.PutRaw(vectorBucketPrefix+"p", id, []byte(`{"m":"m","h":"h","v":"AA\nAA"}`)); err != nil {
						return err
					}
				}
				return tx.PutRaw(vectorBucketPrefix+"p", "gone.md", []byte(`{"m":"m","h":"h"}`))
			})

			// stale asks s which notes lack a vector of "m", and checks
			// whether it answered with its search index on disk only.
			stale := func(s *Store, onDisk bool) []core.StaleNote {
				t.Helper()
				got, err := s.StaleVectors(ctx, "p", "m")
				require.NoError(t, err)
				g, err := s.loadedGraph("p")
				require.NoError(t, err)
				require.Equal(t, onDisk, g.searchPending(), "answered with the search index on disk only")
				return got
			}
			loaded := func() []core.StaleNote { // by a store that loads the vectors
				t.Helper()
				s, err := Open(dir)
				require.NoError(t, err)
				defer func() { require.NoError(t, s.Close(ctx)) }()
				return stale(s, false)
			}

			want := loaded()
			require.NotEmpty(t, want)
			s, err = Open(dir)
			require.NoError(t, err)
			s.LoadSearchOnUse()
			assert.Equal(t, want, stale(s, true))

			// Writes of its own: texts changed, vectors set, a note
			// deleted and one added.
			changed := slices.Clone(notes[10:20])
			for i := range changed {
				changed[i].Content += " again"
				changed[i].Hash += "x"
			}
			changed = append(changed, core.Note{ID: "new.md", Path: "new.md", Title: "new", Content: "new", Hash: "hn"})
			require.NoError(t, s.UpsertNotes(ctx, "p", changed))
			_, err = s.DeleteNotes(ctx, "p", []string{notes[30].ID, notes[50].ID})
			require.NoError(t, err)
			require.NoError(t, s.SetNoteVectors(ctx, "p", "m", []core.NoteVector{
				{ID: notes[11].ID, Hash: notes[11].Hash + "x", Vector: []float32{1, 0}},
				{ID: notes[40].ID, Hash: notes[40].Hash, Vector: []float32{0, 1}},
			}))
			afterWrites := stale(s, true)

			// A search loads the index on use.
			hits, err := s.VectorSearch(ctx, "p", "m", []float32{1, 0}, 5)
			require.NoError(t, err)
			assert.NotEmpty(t, hits)
			g, err := s.loadedGraph("p")
			require.NoError(t, err)
			assert.False(t, g.searchPending())
			inMemory, err := s.StaleVectors(ctx, "p", "m")
			require.NoError(t, err)
			assert.Equal(t, afterWrites, inMemory, "the same store, from its loaded index")
			// A note deleted before the load took its vector with it: not
			// left in the file, not parked by the load.
			g.mu.RLock()
			_, parked := g.search.parked[notes[50].ID]
			g.mu.RUnlock()
			assert.False(t, parked, "the deleted note's vector parked")
			require.NoError(t, s.Close(ctx))
			assert.Equal(t, loaded(), afterWrites, "a store that loaded the vectors written")
			s, err = Open(dir)
			require.NoError(t, err)
			require.NoError(t, s.kv.View(func(tx *kv.Tx) error {
				assert.Nil(t, tx.GetRaw(vectorBucketPrefix+"p", notes[50].ID), "the deleted note's vector left in the file")
				return nil
			}))
			require.NoError(t, s.Close(ctx))
		})
	}
}
