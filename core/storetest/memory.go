package storetest

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/keyword"
)

// The memory contract (core.MemoryStore). Times are compared at
// microsecond precision, which both stores keep exactly (they keep
// nanoseconds); vectors compare to float32 precision.

var memoryCases = []testCase{
	{"a stored memory reads back as written", testMemoryRoundTrip},
	{"identical content in a namespace is stored once", testMemoryDedupe},
	{"a missing memory is not found", testMemoryNotFound},
	{"list filters, orders, pages and counts", testMemoryList},
	{"search ranks by cosine similarity within the filter and model", testMemorySearch},
	{"keyword search ranks by BM25 of the contents within the filter", testMemoryKeywordSearch},
	{"update changes state and records the event atomically", testMemoryUpdate},
	{"concurrent updates of one memory lose none", testMemoryConcurrentUpdates},
	{"an application is closed at most once", testMemoryApplyClosedOnce},
	{"touch records an access", testMemoryTouch},
	{"a new vector replaces the one of the old model", testMemorySetVector},
	{"delete removes memories with their events and relations", testMemoryDelete},
	{"events come oldest first, the newest limit", testMemoryEvents},
	{"relations are created, re-weighed and deleted", testMemoryRelations},
	{"memories of two projects never mix", testMemoryIsolation},
}

var memT0 = time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC)

// unit returns a normalised vector pointing mostly along axis i (of 4),
// tilted towards axis j by t.
func memUnit(i, j int, t float64) []float32 {
	v := make([]float32, 4)
	v[i] = float32(math.Sqrt(1 - t*t))
	v[j] += float32(t)
	return v
}

func newMemory(id, content, ns string, at time.Time) core.Memory {
	return core.Memory{
		ID: id, Content: content, ContentHash: "sha256_" + content, Type: "fact", Namespace: ns,
		Importance: 0.5, Confidence: 300, Metadata: map[string]any{"source": "test"},
		Vector: memUnit(0, 1, 0), Model: "m1", CreatedAt: at, UpdatedAt: at, LastAccessed: at,
	}
}

func (e *env) putMemory(project string, m core.Memory) core.Memory {
	e.t.Helper()
	got, created, err := e.store.PutMemory(e.ctx, project, m)
	require.NoError(e.t, err, "put memory %s", m.ID)
	require.True(e.t, created, "put memory %s created", m.ID)
	return got
}

func (e *env) getMemory(project, id string) core.Memory {
	e.t.Helper()
	m, err := e.store.GetMemory(e.ctx, project, id)
	require.NoError(e.t, err, "get memory %s", id)
	return *m
}

func requireSameMemory(t require.TestingT, want, got core.Memory) {
	require.Equal(t, want.ID, got.ID)
	require.Equal(t, want.Content, got.Content)
	require.Equal(t, want.ContentHash, got.ContentHash)
	require.Equal(t, want.Type, got.Type)
	require.Equal(t, want.Namespace, got.Namespace)
	require.InDelta(t, want.Importance, got.Importance, 1e-12)
	require.Equal(t, want.Confidence, got.Confidence)
	require.Equal(t, want.Model, got.Model)
	require.InDeltaSlice(t, want.Vector, got.Vector, 1e-6)
	require.Equal(t, want.AccessCount, got.AccessCount)
	for _, p := range [][2]time.Time{{want.CreatedAt, got.CreatedAt}, {want.UpdatedAt, got.UpdatedAt}, {want.LastAccessed, got.LastAccessed}} {
		require.True(t, p[0].Equal(p[1]), "time %v, want %v", p[1], p[0])
	}
	require.Equal(t, fmt.Sprint(want.Metadata), fmt.Sprint(got.Metadata))
}

func testMemoryRoundTrip(e *env) {
	p := e.project()
	m := newMemory("mem_a", "User prefers dark mode", "global", memT0)
	m.Metadata = map[string]any{"tool": "ide", "n": 2.5}
	got := e.putMemory(p, m)
	requireSameMemory(e.t, m, got)
	requireSameMemory(e.t, m, e.getMemory(p, "mem_a"))
}

func testMemoryDedupe(e *env) {
	p := e.project()
	first := e.putMemory(p, newMemory("mem_a", "same", "global", memT0))
	dup := newMemory("mem_b", "same", "global", memT0.Add(time.Second))
	got, created, err := e.store.PutMemory(e.ctx, p, dup)
	require.NoError(e.t, err)
	assert.False(e.t, created)
	assert.Equal(e.t, first.ID, got.ID, "the existing memory is returned")
	_, err = e.store.GetMemory(e.ctx, p, "mem_b")
	assert.ErrorIs(e.t, err, core.ErrNotFound, "nothing new stored")
	other := e.putMemory(p, newMemory("mem_c", "same", "project:x", memT0))
	assert.Equal(e.t, "mem_c", other.ID, "another namespace stores its own copy")

	// Concurrent stores of one new content make one memory.
	var wg sync.WaitGroup
	created4 := make([]bool, 8)
	for i := range created4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, c, err := e.store.PutMemory(e.ctx, p, newMemory(fmt.Sprintf("mem_r%d", i), "raced", "default", memT0))
			assert.NoError(e.t, err)
			created4[i] = c
		}()
	}
	wg.Wait()
	n := 0
	for _, c := range created4 {
		if c {
			n++
		}
	}
	assert.Equal(e.t, 1, n, "exactly one concurrent store creates")
	count, err := e.store.CountMemories(e.ctx, p, core.MemoryFilter{Namespaces: []string{"default"}})
	require.NoError(e.t, err)
	assert.Equal(e.t, 1, count)
}

func testMemoryNotFound(e *env) {
	p := e.project()
	_, err := e.store.GetMemory(e.ctx, p, "mem_none")
	assert.ErrorIs(e.t, err, core.ErrNotFound)
	_, err = e.store.UpdateMemory(e.ctx, p, "mem_none", func(*core.Memory) (*core.MemoryEvent, error) { return nil, nil })
	assert.ErrorIs(e.t, err, core.ErrNotFound)
	_, err = e.store.RelateMemories(e.ctx, p, core.MemoryRelation{From: "mem_x", To: "mem_y", Type: "relates_to", Weight: 1, CreatedAt: memT0})
	assert.ErrorIs(e.t, err, core.ErrNotFound)
	gone, err := e.store.DeleteMemories(e.ctx, p, []string{"mem_none"})
	require.NoError(e.t, err)
	assert.Empty(e.t, gone)
	require.NoError(e.t, e.store.TouchMemories(e.ctx, p, []string{"mem_none"}, memT0))
}

func ids(ms []core.Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func testMemoryList(e *env) {
	p := e.project()
	specs := []struct {
		id, ns, typ string
		imp         float64
		conf        int
	}{
		{"mem_1", "global", "fact", 0.2, 300},
		{"mem_2", "default", "decision", 0.9, 900},
		{"mem_3", "project:a", "fact", 0.5, 150},
		{"mem_4", "global", "preference", 0.5, 300},
	}
	for i, s := range specs {
		m := newMemory(s.id, "content "+s.id, s.ns, memT0.Add(time.Duration(i)*time.Minute))
		m.Type, m.Importance, m.Confidence = s.typ, s.imp, s.conf
		m.LastAccessed = memT0.Add(-time.Duration(i) * time.Hour)
		e.putMemory(p, m)
	}
	list := func(f core.MemoryFilter, page core.MemoryPage) ([]string, int) {
		ms, total, err := e.store.ListMemories(e.ctx, p, f, page)
		require.NoError(e.t, err)
		return ids(ms), total
	}
	got, total := list(core.MemoryFilter{}, core.MemoryPage{Order: core.OrderCreatedAt})
	assert.Equal(e.t, []string{"mem_1", "mem_2", "mem_3", "mem_4"}, got)
	assert.Equal(e.t, 4, total)
	got, _ = list(core.MemoryFilter{}, core.MemoryPage{Order: core.OrderCreatedAt, Descending: true, Offset: 1, Limit: 2})
	assert.Equal(e.t, []string{"mem_3", "mem_2"}, got, "second page, newest first")
	got, _ = list(core.MemoryFilter{}, core.MemoryPage{Order: core.OrderConfidence, Descending: true})
	assert.Equal(e.t, []string{"mem_2", "mem_1", "mem_4", "mem_3"}, got, "ties by id ascending")
	got, _ = list(core.MemoryFilter{}, core.MemoryPage{Order: core.OrderImportance})
	assert.Equal(e.t, []string{"mem_1", "mem_3", "mem_4", "mem_2"}, got)
	got, _ = list(core.MemoryFilter{}, core.MemoryPage{Order: core.OrderLastAccessed})
	assert.Equal(e.t, []string{"mem_4", "mem_3", "mem_2", "mem_1"}, got)
	got, total = list(core.MemoryFilter{Namespaces: []string{"global"}}, core.MemoryPage{Limit: 1})
	assert.Equal(e.t, []string{"mem_1"}, got)
	assert.Equal(e.t, 2, total, "total ignores the page")
	got, _ = list(core.MemoryFilter{Type: "fact", MinConfidence: 200}, core.MemoryPage{})
	assert.Equal(e.t, []string{"mem_1"}, got)
	got, _ = list(core.MemoryFilter{MinImportance: 0.5, Namespaces: []string{"global", "project:a"}}, core.MemoryPage{})
	assert.Equal(e.t, []string{"mem_3", "mem_4"}, got)
	got, total = list(core.MemoryFilter{}, core.MemoryPage{Offset: 10})
	assert.Empty(e.t, got)
	assert.Equal(e.t, 4, total)
	n, err := e.store.CountMemories(e.ctx, p, core.MemoryFilter{MinConfidence: 300})
	require.NoError(e.t, err)
	assert.Equal(e.t, 3, n)
}

func testMemorySearch(e *env) {
	p := e.project()
	add := func(id, ns string, v []float32, model string) {
		m := newMemory(id, "c "+id, ns, memT0)
		m.Vector, m.Model = v, model
		e.putMemory(p, m)
	}
	add("mem_near", "global", memUnit(0, 1, 0.1), "m1")
	add("mem_mid", "global", memUnit(0, 1, 0.6), "m1")
	add("mem_far", "global", memUnit(1, 0, 0), "m1")            // orthogonal: score 0
	add("mem_opposite", "global", []float32{-1, 0, 0, 0}, "m1") // cosine -1 clamps to 0
	add("mem_tie", "default", memUnit(0, 1, 0.1), "m1")
	add("mem_other_model", "global", memUnit(0, 1, 0), "m2")
	hits, err := e.store.SearchMemories(e.ctx, p, "m1", memUnit(0, 1, 0), core.MemoryFilter{}, 0)
	require.NoError(e.t, err)
	got := make([]string, len(hits))
	for i, h := range hits {
		got[i] = h.ID
		assert.GreaterOrEqual(e.t, h.Score, 0.0)
		assert.LessOrEqual(e.t, h.Score, 1.0)
	}
	assert.Equal(e.t, []string{"mem_near", "mem_tie", "mem_mid", "mem_far", "mem_opposite"}, got, "model m2 is left out; ties by id")
	assert.InDelta(e.t, math.Sqrt(1-0.01), hits[0].Score, 1e-4)
	assert.InDelta(e.t, 0, hits[3].Score, 1e-4)
	assert.InDelta(e.t, 0, hits[4].Score, 1e-4)
	hits, err = e.store.SearchMemories(e.ctx, p, "m1", memUnit(0, 1, 0), core.MemoryFilter{Namespaces: []string{"global"}}, 2)
	require.NoError(e.t, err)
	require.Len(e.t, hits, 2)
	assert.Equal(e.t, "mem_mid", hits[1].ID)
}

func testMemoryKeywordSearch(e *env) {
	p := e.project()
	contents := map[string]string{
		"mem_ci":     "CI runs the unit tests on every push to main",
		"mem_deploy": "Deploy to production only on Tuesdays after the CI is green",
		"mem_dark":   "User prefers dark mode in the IDE",
		"mem_pg":     "The project uses PostgreSQL 16 for the main database",
		"mem_other":  "Tests of the billing service run nightly",
	}
	ref := keyword.NewIndex() // the scale every store must give
	for id, c := range contents {
		m := newMemory(id, c, "global", memT0)
		if id == "mem_other" {
			m.Namespace, m.Type = "project:x", "decision"
		}
		e.putMemory(p, m)
		ref.Put(id, c)
	}
	want := ref.Search("CI tests on main", 10)
	hits, err := e.store.KeywordSearchMemories(e.ctx, p, "CI tests on main", core.MemoryFilter{}, 0)
	require.NoError(e.t, err)
	require.Len(e.t, hits, len(want))
	for i, h := range hits {
		assert.Equal(e.t, want[i].ID, h.ID, "rank %d", i)
		assert.InDelta(e.t, want[i].Score, h.Score, 1e-9, "the score of %s is embedding/keyword's", h.ID)
		assert.Equal(e.t, contents[h.ID], h.Content, "hits are whole memories")
	}
	assert.Equal(e.t, "mem_ci", hits[0].ID)

	hits, err = e.store.KeywordSearchMemories(e.ctx, p, "tests", core.MemoryFilter{Namespaces: []string{"project:x"}}, 0)
	require.NoError(e.t, err)
	require.Len(e.t, hits, 1)
	assert.Equal(e.t, "mem_other", hits[0].ID)
	hits, err = e.store.KeywordSearchMemories(e.ctx, p, "tests", core.MemoryFilter{Type: "fact"}, 1)
	require.NoError(e.t, err)
	require.Len(e.t, hits, 1)
	assert.Equal(e.t, "mem_ci", hits[0].ID)
	hits, err = e.store.KeywordSearchMemories(e.ctx, p, "the of and", core.MemoryFilter{}, 0)
	require.NoError(e.t, err)
	assert.Empty(e.t, hits, "stop words match nothing")

	_, err = e.store.DeleteMemories(e.ctx, p, []string{"mem_ci"})
	require.NoError(e.t, err)
	hits, err = e.store.KeywordSearchMemories(e.ctx, p, "CI", core.MemoryFilter{}, 0)
	require.NoError(e.t, err)
	require.Len(e.t, hits, 1, "a deleted memory is no longer found")
	assert.Equal(e.t, "mem_deploy", hits[0].ID)
	hits, err = e.store.KeywordSearchMemories(e.ctx, e.project(), "CI", core.MemoryFilter{}, 0)
	require.NoError(e.t, err)
	assert.Empty(e.t, hits, "another project holds none")
}

func testMemoryUpdate(e *env) {
	p := e.project()
	e.putMemory(p, newMemory("mem_a", "a", "global", memT0))
	later := memT0.Add(time.Hour)
	yes := true
	ev := core.MemoryEvent{ID: "evt_1", MemoryID: "mem_a", Kind: "validate", Positive: &yes, Context: "ctx", SessionID: "session-1",
		OldConfidence: 300, NewConfidence: 400, At: later}
	got, err := e.store.UpdateMemory(e.ctx, p, "mem_a", func(m *core.Memory) (*core.MemoryEvent, error) {
		m.Confidence, m.Type, m.UpdatedAt, m.LastAccessed, m.AccessCount = 400, "golden_rule", later, later, 3
		m.Content = "ignored: content is not the change's to make"
		return &ev, nil
	})
	require.NoError(e.t, err)
	want := newMemory("mem_a", "a", "global", memT0)
	want.Confidence, want.Type, want.UpdatedAt, want.LastAccessed, want.AccessCount = 400, "golden_rule", later, later, 3
	requireSameMemory(e.t, want, *got)
	requireSameMemory(e.t, want, e.getMemory(p, "mem_a"))
	evs, err := e.store.MemoryEvents(e.ctx, p, "mem_a", 0)
	require.NoError(e.t, err)
	require.Len(e.t, evs, 1)
	assert.True(e.t, evs[0].At.Equal(later))
	evs[0].At = later
	assert.Equal(e.t, ev, evs[0])

	boom := errors.New("boom")
	_, err = e.store.UpdateMemory(e.ctx, p, "mem_a", func(m *core.Memory) (*core.MemoryEvent, error) {
		m.Confidence = 0
		return &core.MemoryEvent{ID: "evt_2", MemoryID: "mem_a", Kind: "validate", At: later}, boom
	})
	assert.ErrorIs(e.t, err, boom)
	assert.Equal(e.t, 400, e.getMemory(p, "mem_a").Confidence, "a failed change writes nothing")
	evs, err = e.store.MemoryEvents(e.ctx, p, "mem_a", 0)
	require.NoError(e.t, err)
	assert.Len(e.t, evs, 1)
}

func testMemoryConcurrentUpdates(e *env) {
	p := e.project()
	e.putMemory(p, newMemory("mem_a", "a", "global", memT0))
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.store.UpdateMemory(e.ctx, p, "mem_a", func(m *core.Memory) (*core.MemoryEvent, error) {
				m.Confidence++
				return &core.MemoryEvent{ID: fmt.Sprintf("evt_%02d", i), MemoryID: "mem_a", Kind: "apply", At: memT0}, nil
			})
			assert.NoError(e.t, err)
		}()
	}
	wg.Wait()
	assert.Equal(e.t, 300+n, e.getMemory(p, "mem_a").Confidence)
	evs, err := e.store.MemoryEvents(e.ctx, p, "mem_a", 0)
	require.NoError(e.t, err)
	assert.Len(e.t, evs, n)
}

func testMemoryApplyClosedOnce(e *env) {
	p := e.project()
	e.putMemory(p, newMemory("mem_a", "a", "global", memT0))
	yes := true
	update := func(ev core.MemoryEvent) error {
		_, err := e.store.UpdateMemory(e.ctx, p, "mem_a", func(m *core.Memory) (*core.MemoryEvent, error) {
			m.Confidence += 100
			return &ev, nil
		})
		return err
	}
	require.NoError(e.t, update(core.MemoryEvent{ID: "evt_apply1", MemoryID: "mem_a", Kind: "apply", At: memT0}))
	require.NoError(e.t, update(core.MemoryEvent{ID: "evt_out1", MemoryID: "mem_a", Kind: "outcome", Positive: &yes, ApplyID: "evt_apply1", At: memT0}))
	err := update(core.MemoryEvent{ID: "evt_out2", MemoryID: "mem_a", Kind: "outcome", Positive: &yes, ApplyID: "evt_apply1", At: memT0})
	require.ErrorIs(e.t, err, core.ErrConflict, "a second outcome of one application")
	assert.Equal(e.t, 500, e.getMemory(p, "mem_a").Confidence, "the refused outcome changed nothing")
	require.NoError(e.t, update(core.MemoryEvent{ID: "evt_val", MemoryID: "mem_a", Kind: "validate", Positive: &yes, At: memT0}),
		"events that close no application are not limited")

	// Eight concurrent outcomes of one application: one wins.
	require.NoError(e.t, update(core.MemoryEvent{ID: "evt_apply2", MemoryID: "mem_a", Kind: "apply", At: memT0}))
	before := e.getMemory(p, "mem_a").Confidence
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := range 8 {
		wg.Go(func() {
			err := update(core.MemoryEvent{ID: fmt.Sprintf("evt_c%d", i), MemoryID: "mem_a", Kind: "outcome", Positive: &yes, ApplyID: "evt_apply2", At: memT0})
			if err == nil {
				mu.Lock()
				won++
				mu.Unlock()
			} else {
				assert.ErrorIs(e.t, err, core.ErrConflict)
			}
		})
	}
	wg.Wait()
	assert.Equal(e.t, 1, won)
	assert.Equal(e.t, before+100, e.getMemory(p, "mem_a").Confidence)
	evs, err := e.store.MemoryEvents(e.ctx, p, "mem_a", 0)
	require.NoError(e.t, err)
	assert.Len(e.t, evs, 5, "apply, outcome, validate, apply, one outcome")
}

func testMemoryTouch(e *env) {
	p := e.project()
	e.putMemory(p, newMemory("mem_a", "a", "global", memT0))
	e.putMemory(p, newMemory("mem_b", "b", "global", memT0))
	at := memT0.Add(48 * time.Hour)
	require.NoError(e.t, e.store.TouchMemories(e.ctx, p, []string{"mem_a", "mem_a", "mem_none"}, at))
	a, b := e.getMemory(p, "mem_a"), e.getMemory(p, "mem_b")
	assert.True(e.t, a.LastAccessed.Equal(at))
	assert.Equal(e.t, 1, a.AccessCount, "an ID repeated counts once")
	assert.True(e.t, b.LastAccessed.Equal(memT0))
	assert.Equal(e.t, 0, b.AccessCount)
}

func testMemoryDelete(e *env) {
	p := e.project()
	for _, id := range []string{"mem_a", "mem_b", "mem_c"} {
		e.putMemory(p, newMemory(id, id, "global", memT0))
	}
	for _, r := range [][2]string{{"mem_a", "mem_b"}, {"mem_b", "mem_c"}, {"mem_c", "mem_a"}} {
		_, err := e.store.RelateMemories(e.ctx, p, core.MemoryRelation{From: r[0], To: r[1], Type: "relates_to", Weight: 1, CreatedAt: memT0})
		require.NoError(e.t, err)
	}
	_, err := e.store.UpdateMemory(e.ctx, p, "mem_a", func(*core.Memory) (*core.MemoryEvent, error) {
		return &core.MemoryEvent{ID: "evt_a", MemoryID: "mem_a", Kind: "apply", At: memT0}, nil
	})
	require.NoError(e.t, err)
	gone, err := e.store.DeleteMemories(e.ctx, p, []string{"mem_none", "mem_a", "mem_a"})
	require.NoError(e.t, err)
	assert.Equal(e.t, []string{"mem_a"}, gone)
	_, err = e.store.GetMemory(e.ctx, p, "mem_a")
	assert.ErrorIs(e.t, err, core.ErrNotFound)
	evs, err := e.store.MemoryEvents(e.ctx, p, "", 0)
	require.NoError(e.t, err)
	assert.Empty(e.t, evs, "the history goes with the memory")
	rels, err := e.store.MemoryRelations(e.ctx, p, []string{"mem_a", "mem_b", "mem_c"})
	require.NoError(e.t, err)
	require.Len(e.t, rels, 1)
	assert.Equal(e.t, "mem_b", rels[0].From)
	// The content can be stored again once its memory is gone.
	e.putMemory(p, newMemory("mem_a2", "mem_a", "global", memT0))
}

func testMemoryEvents(e *env) {
	p := e.project()
	e.putMemory(p, newMemory("mem_a", "a", "global", memT0))
	e.putMemory(p, newMemory("mem_b", "b", "global", memT0))
	add := func(mem, id string, at time.Time) {
		_, err := e.store.UpdateMemory(e.ctx, p, mem, func(*core.Memory) (*core.MemoryEvent, error) {
			return &core.MemoryEvent{ID: id, MemoryID: mem, Kind: "apply", At: at}, nil
		})
		require.NoError(e.t, err)
	}
	add("mem_a", "evt_3", memT0.Add(3*time.Second))
	add("mem_b", "evt_1", memT0.Add(1*time.Second))
	add("mem_a", "evt_2", memT0.Add(2*time.Second))
	add("mem_a", "evt_2b", memT0.Add(2*time.Second))
	evIDs := func(memID string, limit int) []string {
		evs, err := e.store.MemoryEvents(e.ctx, p, memID, limit)
		require.NoError(e.t, err)
		out := make([]string, len(evs))
		for i, ev := range evs {
			out[i] = ev.ID
		}
		return out
	}
	assert.Equal(e.t, []string{"evt_2", "evt_2b", "evt_3"}, evIDs("mem_a", 0))
	assert.Equal(e.t, []string{"evt_2b", "evt_3"}, evIDs("mem_a", 2))
	assert.Equal(e.t, []string{"evt_1", "evt_2", "evt_2b", "evt_3"}, evIDs("", 0))
	assert.Empty(e.t, evIDs("mem_none", 0))
}

func testMemoryRelations(e *env) {
	p := e.project()
	for _, id := range []string{"mem_a", "mem_b", "mem_c"} {
		e.putMemory(p, newMemory(id, id, "global", memT0))
	}
	relate := func(from, to, typ string, w float64) bool {
		created, err := e.store.RelateMemories(e.ctx, p, core.MemoryRelation{From: from, To: to, Type: typ, Weight: w, CreatedAt: memT0})
		require.NoError(e.t, err)
		return created
	}
	assert.True(e.t, relate("mem_a", "mem_b", "supersedes", 0.5))
	assert.False(e.t, relate("mem_a", "mem_b", "supersedes", 0.8), "same triple: re-weighed")
	assert.True(e.t, relate("mem_a", "mem_b", "relates_to", 1))
	assert.True(e.t, relate("mem_b", "mem_a", "caused_by", 1))
	assert.True(e.t, relate("mem_c", "mem_b", "contradicts", 0.3))
	rels, err := e.store.MemoryRelations(e.ctx, p, []string{"mem_a"})
	require.NoError(e.t, err)
	require.Len(e.t, rels, 3)
	assert.Equal(e.t, core.MemoryRelation{From: "mem_a", To: "mem_b", Type: "relates_to", Weight: 1}, clearTime(rels[0]))
	assert.Equal(e.t, core.MemoryRelation{From: "mem_a", To: "mem_b", Type: "supersedes", Weight: 0.8}, clearTime(rels[1]))
	assert.Equal(e.t, core.MemoryRelation{From: "mem_b", To: "mem_a", Type: "caused_by", Weight: 1}, clearTime(rels[2]))
	assert.True(e.t, rels[1].CreatedAt.Equal(memT0))

	n, err := e.store.UnrelateMemories(e.ctx, p, "mem_a", "mem_b", "supersedes")
	require.NoError(e.t, err)
	assert.Equal(e.t, 1, n)
	n, err = e.store.UnrelateMemories(e.ctx, p, "mem_a", "mem_b", "supersedes")
	require.NoError(e.t, err)
	assert.Equal(e.t, 0, n)
	n, err = e.store.UnrelateMemories(e.ctx, p, "mem_b", "", "")
	require.NoError(e.t, err)
	assert.Equal(e.t, 3, n, "every relation touching mem_b, either direction")
	rels, err = e.store.MemoryRelations(e.ctx, p, []string{"mem_a", "mem_b", "mem_c"})
	require.NoError(e.t, err)
	assert.Empty(e.t, rels)
}

func clearTime(r core.MemoryRelation) core.MemoryRelation {
	r.CreatedAt = time.Time{}
	return r
}

func testMemoryIsolation(e *env) {
	p1, p2 := e.project(), e.project()
	e.putMemory(p1, newMemory("mem_a", "same", "global", memT0))
	e.putMemory(p2, newMemory("mem_a", "same", "global", memT0)) // same id and content: another project
	e.putMemory(p2, newMemory("mem_b", "b", "global", memT0))
	n, err := e.store.CountMemories(e.ctx, p1, core.MemoryFilter{})
	require.NoError(e.t, err)
	assert.Equal(e.t, 1, n)
	gone, err := e.store.DeleteMemories(e.ctx, p1, []string{"mem_a", "mem_b"})
	require.NoError(e.t, err)
	assert.Equal(e.t, []string{"mem_a"}, gone)
	n, err = e.store.CountMemories(e.ctx, p2, core.MemoryFilter{})
	require.NoError(e.t, err)
	assert.Equal(e.t, 2, n)
	hits, err := e.store.SearchMemories(e.ctx, p1, "m1", memUnit(0, 1, 0), core.MemoryFilter{}, 0)
	require.NoError(e.t, err)
	assert.Empty(e.t, hits)
}

func testMemorySetVector(e *env) {
	p := e.project()
	e.putMemory(p, newMemory("mem_a", "a", "global", memT0))
	search := func(model string, v []float32) []core.ScoredMemory {
		hits, err := e.store.SearchMemories(e.ctx, p, model, v, core.MemoryFilter{}, 0)
		require.NoError(e.t, err)
		return hits
	}
	require.Len(e.t, search("m1", memUnit(0, 1, 0)), 1) // and any cache is warm
	require.NoError(e.t, e.store.SetMemoryVector(e.ctx, p, "mem_a", "m2", memUnit(2, 3, 0)))
	assert.Empty(e.t, search("m1", memUnit(0, 1, 0)), "the old model's vector is gone")
	hits := search("m2", memUnit(2, 3, 0))
	require.Len(e.t, hits, 1)
	assert.InDelta(e.t, 1, hits[0].Score, 1e-6)
	m := e.getMemory(p, "mem_a")
	assert.Equal(e.t, "m2", m.Model)
	assert.InDeltaSlice(e.t, memUnit(2, 3, 0), m.Vector, 1e-6)
	assert.Equal(e.t, 300, m.Confidence, "nothing else changes")
	assert.ErrorIs(e.t, e.store.SetMemoryVector(e.ctx, p, "mem_none", "m2", memUnit(2, 3, 0)), core.ErrNotFound)
}
