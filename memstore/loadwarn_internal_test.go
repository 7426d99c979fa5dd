package memstore

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// logRecorder is a slog.Handler that keeps every record it is given. It is
// safe for concurrent use: the store logs from its background loads.
type logRecorder struct {
	mu   sync.Mutex
	recs []loggedRecord
}

// loggedRecord is one record a logRecorder kept, its attributes as text.
type loggedRecord struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	rec := loggedRecord{level: r.Level, msg: r.Message, attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value.String()
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recs = append(h.recs, rec)
	return nil
}

// WithAttrs and WithGroup keep nothing: the store logs through its logger
// as given, never a derived one.
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

func (h *logRecorder) records() []loggedRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]loggedRecord(nil), h.recs...)
}

// storeLoadWarnNotes stores in dir what the tests below load: notes with
// texts (term vectors, a dictionary) and vectors of model "m".
func storeLoadWarnNotes(t *testing.T, dir string) {
	t.Helper()
	ctx := t.Context()
	s, err := Open(dir)
	require.NoError(t, err)
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{
		{ID: "a.md", Path: "a.md", Title: "alpha", Content: "walrus tusk", Hash: "1"},
		{ID: "b.md", Path: "b.md", Title: "beta", Content: "otter walrus", Hash: "2"},
		{ID: "c.md", Path: "c.md", Title: "gamma", Content: "narwhal", Hash: "3"},
	}))
	require.NoError(t, s.SetNoteVectors(ctx, "p", "m", []core.NoteVector{
		{ID: "a.md", Hash: "1", Vector: []float32{1, 0}},
		{ID: "b.md", Hash: "2", Vector: []float32{0, 1}},
		{ID: "c.md", Hash: "3", Vector: []float32{1, 1}},
	}))
	require.NoError(t, s.Close(ctx))
}

// damageState changes the state file in dir with fn, in a store of its
// own that is closed again.
func damageState(t *testing.T, dir string, fn func(tx *kv.Tx) error) {
	t.Helper()
	s, err := Open(dir)
	require.NoError(t, err)
	require.NoError(t, s.kv.Update(fn))
	require.NoError(t, s.Close(t.Context()))
}

// searchBoth runs a vector and a keyword search of project p, which wait
// for the background load of each part of its search index, and returns
// their hits: searches still answer when a part did not load.
func searchBoth(t *testing.T, s *Store) (vector, keyword []core.ScoredID) {
	t.Helper()
	ctx := t.Context()
	vector, err := s.VectorSearch(ctx, "p", "m", []float32{1, 0}, 10)
	require.NoError(t, err)
	keyword, err = s.KeywordSearch(ctx, "p", "walrus", 10)
	require.NoError(t, err)
	return vector, keyword
}

// requireLoadWarning checks that w is a load warning of project p's part,
// naming the damaged record and telling the user what to do.
func requireLoadWarning(t *testing.T, w loggedRecord, part, dir, damaged string) {
	t.Helper()
	requireWarningOf(t, w, part, dir, "search index could not be loaded")
	assert.NotEmpty(t, w.attrs["effect"])
	assert.Contains(t, w.attrs["err"], damaged)
	assert.Contains(t, w.attrs["remedy"], "delete the state folder and run `vaultgraph sync`")
}

// requireWarningOf checks that w is a warning saying msg about project
// p's part, naming the state folder dir.
func requireWarningOf(t *testing.T, w loggedRecord, part, dir, msg string) {
	t.Helper()
	require.Equal(t, slog.LevelWarn, w.level)
	assert.Contains(t, w.msg, msg)
	assert.Equal(t, "p", w.attrs["project"])
	assert.Equal(t, part, w.attrs["part"])
	assert.Equal(t, dir, w.attrs["state_folder"])
}

// A damaged vector record and a damaged term vector are left out of the
// load and made again from the note: its text is analysed again (and its
// term vector written anew), its vector is stale (the next sync's
// embedding writes it anew). Each part logs one warning that names the
// project, the part and the record, and says nothing is lost.
func TestDamagedSearchRecordsAreRebuilt(t *testing.T) {
	ctx, dir := t.Context(), t.TempDir()
	storeLoadWarnNotes(t, dir)
	damageState(t, dir, func(tx *kv.Tx) error {
		if err := tx.PutRaw(vectorBucketPrefix+"p", "b.md", []byte("not a vector")); err != nil {
			return err
		}
		return tx.PutRaw(kwDocsBucket("p"), "b.md", []byte{0x80}) // a length cut short
	})

	s, logs := openRecorded(t, dir)
	vector, keyword := searchBoth(t, s)
	assert.ElementsMatch(t, []string{"a.md", "c.md"}, hitIDs(vector), "b.md's vector left out")
	assert.ElementsMatch(t, []string{"a.md", "b.md"}, hitIDs(keyword), "b.md's text analysed again")
	stale, err := s.StaleVectors(ctx, "p", "m")
	require.NoError(t, err)
	assert.Equal(t, []core.StaleNote{{ID: "b.md", Hash: "2"}}, stale, "to be embedded again")

	got := logs.records()
	require.Len(t, got, 2, "one warning per part")
	requireRebuiltWarning(t, got[0], "vectors", dir, "b.md")
	requireRebuiltWarning(t, got[1], "keyword index", dir, "b.md")
	assert.Contains(t, got[0].attrs["err"], "decode vector")
	assert.Contains(t, got[1].attrs["err"], errBadRecord.Error())

	// The term vector was written anew; the vector is, once embedded.
	require.NoError(t, s.SetNoteVectors(ctx, "p", "m", []core.NoteVector{{ID: "b.md", Hash: "2", Vector: []float32{0, 1}}}))
	require.NoError(t, s.Close(ctx))
	s, logs = openRecorded(t, dir)
	vector, keyword = searchBoth(t, s)
	assert.Len(t, vector, 3)
	assert.ElementsMatch(t, []string{"a.md", "b.md"}, hitIDs(keyword))
	assert.Empty(t, logs.records(), "repaired on disk")
}

// A damaged keyword dictionary is dropped with every term vector, and
// every note's text is analysed again, whether the load or a note write
// meets the damage first: searches find every note, writes succeed, and
// the next start finds a sound dictionary.
func TestDamagedKeywordDictionaryIsRebuilt(t *testing.T) {
	for _, writeFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("write first %v", writeFirst), func(t *testing.T) {
			ctx, dir := t.Context(), t.TempDir()
			storeLoadWarnNotes(t, dir)
			damageState(t, dir, func(tx *kv.Tx) error {
				// The dictionary holds fewer terms: this key is out of order.
				return tx.PutRaw(kwTermsBucket("p"), termKey(100), []byte("out of order"))
			})

			s, logs := openRecorded(t, dir)
			write := func() {
				require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{{ID: "d.md", Path: "d.md", Title: "delta", Content: "walrus again", Hash: "4"}}))
			}
			if writeFirst {
				write() // beside the search load it starts
			}
			vector, keyword := searchBoth(t, s)
			if !writeFirst {
				write()
				_, keyword = searchBoth(t, s)
			}
			assert.Len(t, vector, 3, "the vectors are sound")
			assert.ElementsMatch(t, []string{"a.md", "b.md", "d.md"}, hitIDs(keyword))

			got := logs.records()
			require.Len(t, got, 1, "one warning")
			requireRebuiltWarning(t, got[0], "keyword dictionary", dir, "out of order")

			require.NoError(t, s.Close(ctx))
			s, logs = openRecorded(t, dir)
			_, keyword = searchBoth(t, s)
			assert.ElementsMatch(t, []string{"a.md", "b.md", "d.md"}, hitIDs(keyword))
			assert.Empty(t, logs.records(), "repaired on disk")
		})
	}
}

// hitIDs lists the IDs of hits.
func hitIDs(hits []core.ScoredID) []string {
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	return ids
}

// requireRebuiltWarning checks that w says records of project p's part
// were damaged and are made again, naming what (first or the error).
func requireRebuiltWarning(t *testing.T, w loggedRecord, part, dir, damaged string) {
	t.Helper()
	requireWarningOf(t, w, part, dir, "made again from the notes; nothing is lost")
	assert.NotEmpty(t, w.attrs["rebuilt"])
	assert.Contains(t, w.attrs["first"]+" "+w.attrs["err"], damaged)
	assert.Contains(t, w.attrs["hint"], "nothing to do")
}

// A note without a term vector is analysed from its body by the load
// (buildKeywords): a damaged body stops that analysis, which is logged as
// the keyword index's.
func TestDamagedBodyOfUnindexedNoteIsLogged(t *testing.T) {
	dir := t.TempDir()
	storeLoadWarnNotes(t, dir)
	damageState(t, dir, func(tx *kv.Tx) error {
		if _, err := tx.Delete(kwDocsBucket("p"), "b.md"); err != nil {
			return err
		}
		return tx.PutRaw(bodiesBucket("p"), "b.md", []byte("damaged"))
	})

	s, logs := openRecorded(t, dir)
	vector, keyword := searchBoth(t, s)
	assert.Len(t, vector, 3)
	assert.Len(t, keyword, 1, "a.md's term vector loaded, b.md is not indexed")

	got := logs.records()
	require.Len(t, got, 1)
	requireLoadWarning(t, got[0], "keyword index", dir, "body of b.md")
}

// A sound state logs nothing, a note stored without a term vector (as
// before term vectors were kept: buildKeywords analyses it) included.
func TestSoundStateLogsNoWarning(t *testing.T) {
	dir := t.TempDir()
	storeLoadWarnNotes(t, dir)
	damageState(t, dir, func(tx *kv.Tx) error {
		_, err := tx.Delete(kwDocsBucket("p"), "b.md")
		return err
	})

	s, logs := openRecorded(t, dir)
	vector, keyword := searchBoth(t, s)
	assert.Len(t, vector, 3)
	assert.Len(t, keyword, 2, "b.md analysed again by the load")
	assert.Empty(t, logs.records())
}

// A load that Close cuts short fails to read the closed file: that is no
// damage, and nothing is logged.
func TestLoadCutShortByCloseLogsNothing(t *testing.T) {
	dir := t.TempDir()
	storeLoadWarnNotes(t, dir)

	logs := &logRecorder{}
	s, err := Open(dir, WithLogger(slog.New(logs)))
	require.NoError(t, err)
	g, err := s.loadedGraph("p") // the search load not started yet
	require.NoError(t, err)
	require.NotNil(t, g)
	require.NoError(t, s.Close(t.Context()))
	g.startSearch()
	<-g.vectorsReady
	<-g.keywordsReady
	assert.Empty(t, logs.records())
}

// openRecorded opens the store in dir with a logger whose records it
// returns; the store is closed when the test ends.
func openRecorded(t *testing.T, dir string) (*Store, *logRecorder) {
	t.Helper()
	logs := &logRecorder{}
	s, err := Open(dir, WithLogger(slog.New(logs)))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close(context.Background())) })
	return s, logs
}

// A dictionary rebuilt while notes are written and searched ends with the
// index a store that was never damaged has: every write lands, every
// note is found as it would be. Race detector on.
func TestDamagedDictionaryRebuiltUnderWrites(t *testing.T) {
	ctx, dir := t.Context(), t.TempDir()
	rng := rand.New(rand.NewPCG(7, 7))
	note := func(i int) core.Note {
		id := fmt.Sprintf("n%03d.md", i)
		return core.Note{ID: id, Path: id, Title: fmt.Sprintf("note %d", i), Content: randomText(rng, 5+rng.IntN(30)), Hash: fmt.Sprint(rng.Uint64())}
	}
	want := New()
	s, err := Open(dir)
	require.NoError(t, err)
	var first []core.Note
	for i := range 300 {
		first = append(first, note(i))
	}
	require.NoError(t, want.UpsertNotes(ctx, "p", first))
	require.NoError(t, s.UpsertNotes(ctx, "p", first))
	require.NoError(t, s.Close(ctx))
	damageState(t, dir, func(tx *kv.Tx) error {
		return tx.PutRaw(kwTermsBucket("p"), termKey(1<<19), []byte("out of order"))
	})

	got, logs := openRecorded(t, dir)
	var searches sync.WaitGroup
	stop := make(chan struct{})
	searches.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_, err := got.KeywordSearch(ctx, "p", testWords[i%len(testWords)], 5)
			assert.NoError(t, err)
		}
	})
	for round := range 40 {
		batch := []core.Note{note(rng.IntN(350)), note(rng.IntN(350))}
		require.NoError(t, want.UpsertNotes(ctx, "p", batch))
		require.NoError(t, got.UpsertNotes(ctx, "p", batch), "round %d", round)
		if round%10 == 9 {
			ids := []string{fmt.Sprintf("n%03d.md", rng.IntN(350))}
			_, err := want.DeleteNotes(ctx, "p", ids)
			require.NoError(t, err)
			_, err = got.DeleteNotes(ctx, "p", ids)
			require.NoError(t, err)
		}
	}
	close(stop)
	searches.Wait()
	requireSameKeywordSearches(t, want, got, testWords, 400, "after the rebuild")
	require.Len(t, logs.records(), 1, "one warning")
	requireRebuiltWarning(t, logs.records()[0], "keyword dictionary", dir, "out of order")
}

// A damaged note body takes away only that note's text: a note showing it
// as a neighbour, and a list of notes by tag holding it, still answer
// (its text empty), with one warning that names it and says what to do;
// reading the note itself fails with the store's error.
func TestDamagedBodyFailsOnlyItsNote(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	s, err := Open(dir)
	require.NoError(t, err)
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{
		{ID: "a.md", Path: "a.md", Title: "alpha", Content: "see [[b]]", Hash: "1", Tags: []string{"t"},
			Links: []core.Link{{Raw: "[[b]]", Key: "b", Target: "b.md"}}},
		{ID: "b.md", Path: "b.md", Title: "beta", Content: "otter", Hash: "2", Tags: []string{"t"}},
	}))
	require.NoError(t, s.Close(ctx))
	damageState(t, dir, func(tx *kv.Tx) error { return tx.PutRaw(bodiesBucket("p"), "b.md", []byte("damaged")) })

	s, logs := openRecorded(t, dir)
	for range 2 { // logged once
		nc, err := s.NoteContext(ctx, "p", "a.md", core.ContextQuery{Direction: core.DirectionBoth})
		require.NoError(t, err)
		assert.Equal(t, "see [[b]]", nc.Note.Content)
		require.Len(t, nc.Neighbors, 1)
		assert.Equal(t, "b.md", nc.Neighbors[0].ID)
		assert.Empty(t, nc.Neighbors[0].Content)

		views, err := s.TaggedViews(ctx, "p", []string{"t"}, core.TagModeAny, 10)
		require.NoError(t, err)
		require.Len(t, views, 2)
	}
	_, err = s.NoteContext(ctx, "p", "b.md", core.ContextQuery{})
	var pe *core.ProviderError
	require.ErrorAs(t, err, &pe, "the damaged note itself")

	got := logs.records()
	require.Len(t, got, 1)
	assert.Equal(t, slog.LevelWarn, got[0].level)
	assert.Equal(t, "b.md", got[0].attrs["note"])
	assert.Equal(t, dir, got[0].attrs["state_folder"])
	assert.Contains(t, got[0].attrs["remedy"], "delete the state folder and run `vaultgraph sync`")
}
