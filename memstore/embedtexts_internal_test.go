package memstore

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
	"github.com/vaultgraph/vaultgraph/semantic"
)

// appendStoredVector writes the bytes json.Marshal writes for the record,
// for every length of vector (base64's padding), a zero vector (no "v"),
// and a model or hash json.Marshal escapes (through json.Marshal).
func TestAppendStoredVectorIsJSONMarshal(t *testing.T) {
	for _, tc := range []struct{ model, hash string }{
		{"all-minilm-l6-v2-static256:13efd9de95ac", strings.Repeat("0123456789abcdef", 4)},
		{"m<&>", "h\"q\\"},
		{"modèle", "h\n"},
		{"", ""},
	} {
		for dim := 0; dim <= 9; dim++ {
			vec := make([]float32, dim)
			for i := range vec {
				vec[i] = float32(i+1)/7 - 0.5
			}
			if dim == 1 {
				vec[0] = float32(math.Inf(1))
			}
			want, err := json.Marshal(storedVector{Model: tc.model, Hash: tc.hash, Vector: encodeVector(vec)})
			require.NoError(t, err)
			prefix := []byte("prefix")
			rec := appendStoredVector(prefix, tc.model, tc.hash, vec)
			require.Equal(t, "prefix"+string(want), string(rec), "model %q, dim %d", tc.model, dim)
		}
	}
}

// hashEmbedder hashes words into a small vector (not normalised, so the
// store's normalisation is exercised); a text without words gives a zero
// vector.
type hashEmbedder struct{}

func (hashEmbedder) Name() string   { return "hash" }
func (hashEmbedder) Model() string  { return "hash-16" }
func (hashEmbedder) Dimension() int { return 16 }

func (hashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 16)
		for _, w := range strings.Fields(t) {
			h := fnv.New32a()
			_, _ = h.Write([]byte(w))
			v[h.Sum32()%16] += float32(len(w))
		}
		out[i] = v
	}
	return out, nil
}

// onlyStore hides the store's NoteTexts from the indexer: it reads
// through GetNotes, as with Neo4j.
type onlyStore struct{ semantic.Store }

// An embedding pass through NoteTexts stores exactly the vector records
// (bytes) and in-memory rows of a pass through GetNotes: notes with and
// without a title, an empty one (zero vector), and IDs that are gone.
func TestIndexerThroughNoteTextsStoresWhatGetNotesGives(t *testing.T) {
	ctx := t.Context()
	var notes []core.Note
	for i := range 300 {
		n := core.Note{ID: fmt.Sprintf("d%d/n%03d.md", i%7, i), Title: fmt.Sprintf("Note %d", i),
			Content: fmt.Sprintf("body %d word%d shared words é", i, i%13), Hash: fmt.Sprintf("h%d", i)}
		switch i % 50 {
		case 1:
			n.Title = ""
		case 2:
			n.Title, n.Content = "", ""
		case 3:
			n.Frontmatter = map[string]any{"k": "v"}
		}
		notes = append(notes, n)
	}
	var stores []*Store
	for _, through := range []func(*Store) semantic.Store{
		func(s *Store) semantic.Store { return s },
		func(s *Store) semantic.Store { return onlyStore{s} },
	} {
		s, err := Open(t.TempDir())
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close(context.Background()) })
		require.NoError(t, s.UpsertNotes(ctx, "p", notes))
		ix, err := semantic.NewIndexer(semantic.IndexerConfig{Project: "p", Store: through(s), Embedder: hashEmbedder{},
			BatchSize: 64, Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		st, err := ix.IndexStale(ctx)
		require.NoError(t, err)
		require.Equal(t, len(notes), st.Embedded)
		stores = append(stores, s)
	}
	_, isText := any(stores[0]).(semantic.TextStore)
	require.True(t, isText)
	vectors := func(s *Store) map[string]string {
		out := map[string]string{}
		require.NoError(t, s.kv.View(func(tx *kv.Tx) error {
			return tx.ForEachRaw(vectorBucketPrefix+"p", func(k, v []byte) error {
				out[string(k)] = string(v)
				return nil
			})
		}))
		return out
	}
	require.Len(t, vectors(stores[0]), len(notes))
	require.Equal(t, vectors(stores[1]), vectors(stores[0]))
	for _, q := range []string{"body 7 word7", "shared words", "Note 12"} {
		qv, _ := hashEmbedder{}.Embed(ctx, []string{q})
		a, err := stores[0].VectorSearch(ctx, "p", semantic.NoteModel(hashEmbedder{}), qv[0], 20)
		require.NoError(t, err)
		b, err := stores[1].VectorSearch(ctx, "p", semantic.NoteModel(hashEmbedder{}), qv[0], 20)
		require.NoError(t, err)
		require.NotEmpty(t, a)
		require.Equal(t, b, a, "query %q", q)
	}

	// NoteTexts skips IDs that are gone and keeps the order asked.
	var got []string
	require.NoError(t, stores[0].NoteTexts(ctx, "p", []string{notes[5].ID, "gone.md", notes[3].ID}, func(id, hash, title string, content []byte) {
		got = append(got, id+"|"+hash+"|"+title+"|"+string(content))
	}))
	require.Equal(t, []string{
		notes[5].ID + "|h5|Note 5|" + notes[5].Content,
		notes[3].ID + "|h3|Note 3|" + notes[3].Content,
	}, got)
	require.NoError(t, stores[0].NoteTexts(ctx, "nope", []string{"x"}, func(string, string, string, []byte) { t.Fatal("no project, no notes") }))
}
