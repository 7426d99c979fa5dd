package memory_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding"
	"github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// The relevance evaluation of docs/MEMORY.md ("Recall and the match
// floor"): the labelled paraphrase set memory/testdata/recall.json, ranked
// by the memory service with the configured embedder. Re-run it with
//
//	go test ./memory -run 'TestRecall|TestMatchFloor' -v
//
// and, for another embedder, VAULTGRAPH_EVAL_PROVIDER (builtin, ollama,
// openai), VAULTGRAPH_EVAL_URL, VAULTGRAPH_EVAL_MODEL (the built-in
// provider's static table: VAULTGRAPH_EVAL_MODEL=static).

type recallSet struct {
	Memories []struct {
		ID, Type, Content string
	} `json:"memories"`
	Queries []struct {
		Query  string `json:"query"`
		Memory string `json:"memory"`
		Style  string `json:"style"` // question or topic
	} `json:"queries"`
	Unrelated []string `json:"unrelated"`
}

// evalEnv is the set stored through a memory service.
type evalEnv struct {
	set   recallSet
	svc   *memory.Service
	store *memstore.Store
	emb   core.Embedder
	label map[string]string // memory ID -> set ID
}

func evalEmbedder(t *testing.T) core.Embedder {
	t.Helper()
	emb, err := embedding.New(os.Getenv("VAULTGRAPH_EVAL_PROVIDER"), os.Getenv("VAULTGRAPH_EVAL_URL"), os.Getenv("VAULTGRAPH_EVAL_MODEL"), "")
	require.NoError(t, err)
	require.NotNil(t, emb, "the evaluation needs an embedder")
	return cachedEmbedder{emb}
}

// embedCache keeps the evaluations' vectors by model and text: the sets
// embed the same texts several times, and the transformer under the race
// detector takes seconds per hundred.
var embedCache sync.Map

// cachedEmbedder is an embedder whose vectors are remembered in embedCache.
type cachedEmbedder struct{ core.Embedder }

func (c cachedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var missing []string
	var at []int
	for i, text := range texts {
		if v, ok := embedCache.Load(c.Model() + "\x00" + text); ok {
			out[i] = v.([]float32)
		} else {
			missing = append(missing, text)
			at = append(at, i)
		}
	}
	if len(missing) > 0 {
		vs, err := c.Embedder.Embed(ctx, missing)
		if err != nil {
			return nil, err
		}
		for j, v := range vs {
			embedCache.Store(c.Model()+"\x00"+missing[j], v)
			out[at[j]] = v
		}
	}
	return out, nil
}

func loadRecallSet(t *testing.T) *evalEnv {
	t.Helper()
	raw, err := os.ReadFile("testdata/recall.json")
	require.NoError(t, err)
	e := &evalEnv{store: memstore.New(), emb: evalEmbedder(t), label: map[string]string{}}
	require.NoError(t, json.Unmarshal(raw, &e.set))
	e.svc = memory.New("eval", e.store, e.emb)
	for _, m := range e.set.Memories {
		got, created, err := e.svc.Store(t.Context(), memory.StoreInput{Content: m.Content, Type: m.Type, Namespace: "global", Importance: 0.5})
		require.NoError(t, err)
		require.True(t, created, m.ID)
		e.label[got.ID] = m.ID
	}
	return e
}

// parts are a query's cosine and keyword scores against every memory, by
// set ID.
func (e *evalEnv) parts(t *testing.T, query string) (cos, words map[string]float64) {
	t.Helper()
	vs, err := e.emb.Embed(t.Context(), []string{query})
	require.NoError(t, err)
	vec, err := e.store.SearchMemories(t.Context(), "eval", e.emb.Model(), vs[0], core.MemoryFilter{}, 0)
	require.NoError(t, err)
	kw, err := e.store.KeywordSearchMemories(t.Context(), "eval", query, core.MemoryFilter{}, 0)
	require.NoError(t, err)
	cos, words = map[string]float64{}, map[string]float64{}
	for _, h := range vec {
		cos[e.label[h.ID]] = h.Score
	}
	for _, h := range kw {
		words[e.label[h.ID]] = h.Score
	}
	return cos, words
}

// rankOf is the 1-based rank of want among the set's memories by score
// (ties count against want).
func rankOf(scores func(id string) float64, ids []string, want string) int {
	r := 1
	for _, id := range ids {
		if id != want && scores(id) >= scores(want) {
			r++
		}
	}
	return r
}

type recallFigures struct {
	hit1, hit3 int
	mrr        float64
	misses     []string
}

func (f recallFigures) String(n int) string {
	return fmt.Sprintf("hit@1 %d/%d (%.0f%%), hit@3 %d/%d (%.0f%%), MRR %.3f", f.hit1, n, 100*float64(f.hit1)/float64(n),
		f.hit3, n, 100*float64(f.hit3)/float64(n), f.mrr/float64(n))
}

func TestRecallFindsParaphrases(t *testing.T) {
	e := loadRecallSet(t)
	n := len(e.set.Queries)
	require.GreaterOrEqual(t, n, 50, "the set holds at least 50 memory/query pairs")
	ids := make([]string, len(e.set.Memories))
	for i, m := range e.set.Memories {
		ids[i] = m.ID
	}
	type scored struct {
		cos, words map[string]float64
	}
	all := make([]scored, n)
	for i, q := range e.set.Queries {
		c, w := e.parts(t, q.Query)
		all[i] = scored{c, w}
	}
	measure := func(style string, score func(i int, id string) float64) (recallFigures, int) {
		var f recallFigures
		n := 0
		for i, q := range e.set.Queries {
			if style != "" && q.Style != style {
				continue
			}
			n++
			r := rankOf(func(id string) float64 { return score(i, id) }, ids, q.Memory)
			if r == 1 {
				f.hit1++
			} else {
				f.misses = append(f.misses, fmt.Sprintf("%q -> %s at rank %d", q.Query, q.Memory, r))
			}
			if r <= 3 {
				f.hit3++
			}
			f.mrr += 1 / float64(r)
		}
		return f, n
	}
	t.Logf("embedder %s, %d memories, %d queries", e.emb.Model(), len(ids), n)
	for _, w := range []float64{0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1} {
		score := func(i int, id string) float64 { return w*all[i].cos[id] + (1-w)*all[i].words[id] }
		line := fmt.Sprintf("vector weight %.1f:", w)
		for _, style := range []string{"", "question", "topic"} {
			f, k := measure(style, score)
			line += fmt.Sprintf("  [%s] %s", cmp.Or(style, "all"), f.String(k))
		}
		t.Log(line)
	}

	// What the service answers (memory_recall's ranking), top 3.
	got := map[string]*recallFigures{"all": {}, "question": {}, "topic": {}}
	count := map[string]int{}
	var misses []string
	for _, q := range e.set.Queries {
		hits, err := e.svc.Search(t.Context(), q.Query, "", 3)
		require.NoError(t, err)
		pos := slices.IndexFunc(hits, func(h core.ScoredMemory) bool { return e.label[h.ID] == q.Memory })
		for _, k := range []string{"all", q.Style} {
			count[k]++
			if pos == 0 {
				got[k].hit1++
			}
			if pos >= 0 {
				got[k].hit3++
			}
		}
		switch {
		case pos > 0:
			misses = append(misses, fmt.Sprintf("[%s] %q -> %s at rank %d", q.Style, q.Query, q.Memory, pos+1))
		case pos < 0:
			misses = append(misses, fmt.Sprintf("[%s] %q -> %s not in the top 3 (first: %s)", q.Style, q.Query, q.Memory, e.label[hits[0].ID]))
		}
	}
	for _, k := range []string{"all", "question", "topic"} {
		f, c := got[k], count[k]
		t.Logf("memory_recall [%s] (vector weight %.1f): hit@1 %d/%d (%.0f%%), hit@3 %d/%d (%.0f%%)", k, memory.VectorWeight,
			f.hit1, c, 100*float64(f.hit1)/float64(c), f.hit3, c, 100*float64(f.hit3)/float64(c))
	}
	for _, m := range misses {
		t.Logf("  miss: %s", m)
	}
	// The target is hit@1 >= 80 %, hit@3 >= 95 %. The embedders at
	// hand do not reach it on this set (docs/MEMORY.md: the misses need
	// world knowledge a small model lacks); the test holds the figures
	// measured with the default model, so that a change of ranking that
	// loses ground fails.
	overall := got["all"]
	t.Logf("target hit@1 >= 80%%, hit@3 >= 95%%: %s", map[bool]string{true: "met", false: "not met"}[overall.hit1*100 >= 80*n && overall.hit3*100 >= 95*n])
	if defaultEmbedder() && (overall.hit1*100 < recallFloor1*n || overall.hit3*100 < recallFloor3*n) {
		t.Errorf("recall fell below what the built-in model gave: hit@1 %d%% (was >= %d%%), hit@3 %d%% (was >= %d%%)",
			overall.hit1*100/n, recallFloor1, overall.hit3*100/n, recallFloor3)
	}
}

// The figures TestRecallFindsParaphrases holds with the default embedder
// (the built-in transformer), in percent: those it gave when they were
// set (78 %, 91 %), less a few points.
const (
	recallFloor1 = 75
	recallFloor3 = 88
)

// defaultEmbedder reports whether the evaluation runs the default embedder,
// whose figures the tests hold; another one's are only reported.
func defaultEmbedder() bool {
	return os.Getenv("VAULTGRAPH_EVAL_PROVIDER")+os.Getenv("VAULTGRAPH_EVAL_URL")+os.Getenv("VAULTGRAPH_EVAL_MODEL") == ""
}

// TestMatchFloorSeparatesRelatedFromUnrelated measures the relevance of
// every (query, memory) pair of the set: the pairs of a query and its
// memory are related, every other pair (and every pair of an unrelated
// query) is not. memory_forget deletes only memories at least
// MatchFloor relevant, so the floor must lie above every unrelated pair.
func TestMatchFloorSeparatesRelatedFromUnrelated(t *testing.T) {
	e := loadRecallSet(t)
	var related, unrelated, offTopic []float64
	var worst []string
	for _, q := range e.set.Queries {
		c, w := e.parts(t, q.Query)
		for _, m := range e.set.Memories {
			s := memory.Relevance(c[m.ID], w[m.ID])
			if m.ID == q.Memory {
				related = append(related, s)
			} else {
				unrelated = append(unrelated, s)
				if s >= memory.MatchFloor {
					worst = append(worst, fmt.Sprintf("%q ~ %s: %.3f", q.Query, m.ID, s))
				}
			}
		}
	}
	for _, q := range e.set.Unrelated {
		c, w := e.parts(t, q)
		for _, m := range e.set.Memories {
			s := memory.Relevance(c[m.ID], w[m.ID])
			offTopic = append(offTopic, s)
			if s >= memory.MatchFloor {
				worst = append(worst, fmt.Sprintf("%q ~ %s: %.3f", q, m.ID, s))
			}
		}
	}
	slices.Sort(related)
	slices.Sort(unrelated)
	slices.Sort(offTopic)
	q := func(xs []float64, p float64) float64 { return xs[min(len(xs)-1, int(p*float64(len(xs))))] }
	t.Logf("embedder %s", e.emb.Model())
	t.Logf("related pairs (%d): min %.3f, 10th pct %.3f, median %.3f", len(related), related[0], q(related, 0.1), q(related, 0.5))
	t.Logf("other memories of a query (%d pairs): median %.3f, 99th pct %.3f, max %.3f", len(unrelated), q(unrelated, 0.5), q(unrelated, 0.99), unrelated[len(unrelated)-1])
	t.Logf("queries no memory answers (%d pairs): median %.3f, max %.3f", len(offTopic), q(offTopic, 0.5), offTopic[len(offTopic)-1])
	t.Logf("%-6s %-28s %-28s %s", "floor", "related kept", "unrelated pairs above", "off-topic pairs above")
	for _, floor := range []float64{0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5} {
		above := func(xs []float64) int {
			if i := slices.IndexFunc(xs, func(x float64) bool { return x >= floor }); i >= 0 {
				return len(xs) - i
			}
			return 0
		}
		t.Logf("%-6.2f %-28s %-28s %d", floor, fmt.Sprintf("%d/%d", above(related), len(related)),
			fmt.Sprintf("%d/%d", above(unrelated), len(unrelated)), above(offTopic))
	}
	if len(worst) > 0 {
		t.Logf("pairs not related but at or above the floor %.2f:\n  %s", memory.MatchFloor, strings.Join(worst, "\n  "))
	}
	if i := slices.IndexFunc(offTopic, func(x float64) bool { return x >= memory.MatchFloor }); i >= 0 {
		t.Errorf("%d pairs of queries no memory answers reach the forget floor %.2f: memory_forget would delete them",
			len(offTopic)-i, memory.MatchFloor)
	}
	if i := slices.IndexFunc(offTopic, func(x float64) bool { return x >= memory.ContextFloor }); i >= 0 && (len(offTopic)-i)*100 > 2*len(offTopic) {
		t.Errorf("%d of %d pairs of queries no memory answers reach the context floor %.2f (at most 2%% may)",
			len(offTopic)-i, len(offTopic), memory.ContextFloor)
	}
}

// TestRecallFloorKeepsEveryFirstHit measures memory_recall's relevance
// floor (memory.RecallFloor, issue 49.7) on the labelled set: the top
// score of each answered query whose first memory is the right one (the
// floor must keep them all: hit@1 stays what it was), and the top score of
// each query no memory answers (those below the floor get an empty answer
// with a note instead of five unrelated memories).
func TestRecallFloorKeepsEveryFirstHit(t *testing.T) {
	e := loadRecallSet(t)
	var rightFirst, unanswered []float64
	for _, q := range e.set.Queries {
		hits, err := e.svc.Search(t.Context(), q.Query, "", 1)
		require.NoError(t, err)
		if len(hits) > 0 && e.label[hits[0].ID] == q.Memory {
			rightFirst = append(rightFirst, hits[0].Score)
		}
	}
	for _, q := range e.set.Unrelated {
		hits, err := e.svc.Search(t.Context(), q, "", 1)
		require.NoError(t, err)
		if len(hits) > 0 {
			unanswered = append(unanswered, hits[0].Score)
		} else {
			unanswered = append(unanswered, 0)
		}
	}
	slices.Sort(rightFirst)
	slices.Sort(unanswered)
	floor := e.svc.RecallFloorOf()
	emptied := slices.IndexFunc(unanswered, func(x float64) bool { return x >= floor })
	if emptied < 0 {
		emptied = len(unanswered)
	}
	t.Logf("embedder %s: right first memories %d, their scores from %.3f (p10 %.3f); queries no memory answers: top scores %v",
		e.emb.Model(), len(rightFirst), rightFirst[0], rightFirst[len(rightFirst)/10], unanswered)
	t.Logf("floor %.2f: %d of %d queries no memory answers get nothing; hit@1 kept: %v",
		floor, emptied, len(unanswered), rightFirst[0] >= floor)
	require.GreaterOrEqual(t, rightFirst[0], floor, "the floor drops a right first memory: hit@1 would fall")
}
