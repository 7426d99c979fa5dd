package memory_test

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding"
	"github.com/vaultgraph/vaultgraph/embedding/builtin"
	"github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/memstore"
)

func builtinService(t *testing.T) (*memory.Service, *memstore.Store) {
	t.Helper()
	emb, err := builtin.New()
	require.NoError(t, err)
	st := memstore.New()
	return memory.New("p", st, emb), st
}

func mustStore(t *testing.T, svc *memory.Service, content, typ string) core.Memory {
	t.Helper()
	m, created, err := svc.Store(t.Context(), memory.StoreInput{Content: content, Type: typ, Namespace: "global", Importance: 0.5})
	require.NoError(t, err)
	require.True(t, created)
	return m
}

var fiveMemories = []string{
	"Deploy to production only on Tuesdays after the release checklist is done",
	"User prefers dark mode for their IDE",
	"Always use type hints in Python code",
	"Project uses PostgreSQL 15",
	"Chose FastAPI over Flask for performance",
}

func count(t *testing.T, svc *memory.Service) int {
	t.Helper()
	n, err := svc.Count(t.Context(), memory.Filter{})
	require.NoError(t, err)
	return n
}

// Issue 25: "mem_4c70d961562bc45" (one digit short) became a query and
// deleted the deploy memory.
func TestForgetReadsEveryMemPrefixAsAnID(t *testing.T) {
	svc, _ := builtinService(t)
	deploy := mustStore(t, svc, fiveMemories[0], "pattern")
	for _, s := range fiveMemories[1:] {
		mustStore(t, svc, s, "fact")
	}
	for _, v := range []string{deploy.ID[:len(deploy.ID)-1], deploy.ID + "0", "mem_deploy", "mem_", "  " + deploy.ID[:10] + "  "} {
		_, err := svc.Forget(t.Context(), memory.ForgetInput{InputValue: v, NResults: 5})
		require.Error(t, err, v)
		assert.Equal(t, "Memory not found: "+strings.TrimSpace(v), err.Error())
	}
	assert.Equal(t, 5, count(t, svc), "nothing was deleted")
	res, err := svc.Forget(t.Context(), memory.ForgetInput{InputValue: deploy.ID})
	require.NoError(t, err)
	assert.Equal(t, []string{deploy.ID}, res.Deleted)
	assert.Equal(t, "id", res.Mode)
}

// Issue 25: {"query":"kimchi recipe"} deleted 5 unrelated memories at
// similarity 0.12-0.20.
func TestForgetByQueryDeletesOnlyWhatMatches(t *testing.T) {
	svc, _ := builtinService(t)
	ids := map[string]string{}
	for _, s := range fiveMemories {
		ids[s] = mustStore(t, svc, s, "fact").ID
	}
	for _, q := range []string{"kimchi recipe", "weather forecast for tomorrow", "how to knit a scarf"} {
		res, err := svc.Forget(t.Context(), memory.ForgetInput{Query: q, NResults: 5})
		require.NoError(t, err)
		assert.Empty(t, res.Deleted, q)
		assert.Empty(t, res.Matches, q)
	}
	assert.Equal(t, 5, count(t, svc))

	// A dry run answers what would go and deletes nothing.
	dry, err := svc.Forget(t.Context(), memory.ForgetInput{Query: "PostgreSQL 15", NResults: 5, DryRun: true})
	require.NoError(t, err)
	assert.Empty(t, dry.Deleted)
	assert.Equal(t, []string{ids[fiveMemories[3]]}, dry.WouldDelete)
	require.Len(t, dry.Matches, 1)
	assert.GreaterOrEqual(t, dry.Matches[0].Score, memory.MatchFloor)
	assert.Equal(t, 5, count(t, svc))

	res, err := svc.Forget(t.Context(), memory.ForgetInput{Query: "PostgreSQL 15", NResults: 5})
	require.NoError(t, err)
	assert.Equal(t, dry.WouldDelete, res.Deleted, "the dry run said what the real one did")
	assert.Equal(t, 4, count(t, svc))
}

func TestAnApplicationIsClosedOnce(t *testing.T) {
	svc, _ := builtinService(t)
	m := mustStore(t, svc, "Run the linter before pushing", "pattern")
	_, apply, err := svc.Apply(t.Context(), m.ID, "before the push of the fix", "")
	require.NoError(t, err)
	first, err := svc.Outcome(t.Context(), m.ID, true, "passed", apply.ID, "")
	require.NoError(t, err)
	assert.Equal(t, 400, first.NewConfidence)
	for range 5 {
		_, err = svc.Outcome(t.Context(), m.ID, true, "again", apply.ID, "")
		require.Error(t, err)
		assert.Equal(t, "Application already closed: "+apply.ID+" (its outcome is recorded; call memory_apply again to record another)", err.Error())
	}
	got, err := svc.Get(t.Context(), m.ID)
	require.NoError(t, err)
	assert.Equal(t, 400, got.Confidence, "six outcomes on one apply no longer make a golden rule")
	assert.Equal(t, memory.TypePattern, got.Type)

	// Concurrent outcomes of a new application: one lands.
	_, apply2, err := svc.Apply(t.Context(), m.ID, "second try", "")
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for range 6 {
		wg.Go(func() {
			if _, err := svc.Outcome(context.Background(), m.ID, false, "", apply2.ID, ""); err == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 1, ok)
	// Without event_id an outcome closes nothing and is not limited.
	for range 2 {
		_, err := svc.Outcome(t.Context(), m.ID, true, "", "", "")
		require.NoError(t, err)
	}
}

func TestNamespacesAndContentAreChecked(t *testing.T) {
	svc, _ := builtinService(t)
	for _, ns := range []string{"project:a\x00b", "project:tab\there", "project:\u202eevil", "project:new\nline", "project:" + strings.Repeat("x", 300)} {
		_, _, err := svc.Store(t.Context(), memory.StoreInput{Content: "x", Type: "fact", Namespace: ns})
		require.Error(t, err, "%q", ns)
		assert.True(t, strings.HasPrefix(err.Error(), "Invalid namespace: "), err.Error())
		_, err = svc.Count(t.Context(), memory.Filter{Namespace: ns})
		require.Error(t, err, "filters are checked the same way")
	}
	_, _, err := svc.Store(t.Context(), memory.StoreInput{Content: "x", Type: "fact", Namespace: "project:Café ☕"})
	require.NoError(t, err, "printable names of any script are fine")

	long := strings.Repeat("é", memory.MaxContentLength+1)
	_, _, err = svc.Store(t.Context(), memory.StoreInput{Content: long, Type: "fact", Namespace: "global"})
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "Content is too long: 8001 characters, the limit is 8000"), err.Error())
	_, created, err := svc.Store(t.Context(), memory.StoreInput{Content: long[:2*memory.MaxContentLength], Type: "fact", Namespace: "global"})
	require.NoError(t, err, "exactly the limit is fine")
	assert.True(t, created)
}

// hashEmbedder gives every text a pseudo-random unit vector of 512
// dimensions: two texts' cosine is noise around 0 (about ±0.05), so their
// similarities carry no meaning and only the keyword half of a ranking can
// find anything.
type hashEmbedder struct{}

const hashDim = 512

func (hashEmbedder) Name() string   { return "hash" }
func (hashEmbedder) Model() string  { return "hash-v1" }
func (hashEmbedder) Dimension() int { return hashDim }
func (hashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, text := range texts {
		v := make([]float32, hashDim)
		var norm float64
		block := sha256.Sum256([]byte(text))
		for j := range v {
			if j%16 == 0 && j > 0 {
				block = sha256.Sum256(block[:])
			}
			x := float64(int16(binary.LittleEndian.Uint16(block[2*(j%16):]))) / 32768
			v[j] = float32(x)
			norm += x * x
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(norm))
		}
		out[i] = v
	}
	return out, nil
}

// Recall weighs the query's words: a name or an acronym the embedding
// cannot place (here: an embedder that places nothing) still finds its
// memory first.
func TestRecallWeighsTheQuerysWords(t *testing.T) {
	svc := memory.New("p", memstore.New(), hashEmbedder{})
	contents := []string{
		"The CI pipeline runs on Buildkite agents",
		"Escalate incidents to Priya, the SRE lead",
		"Kimchi is fermented for three weeks in the cellar",
		"Use PostgreSQL 16 for the billing database",
		"The design review happens on Thursdays",
		"Vault tokens rotate every 24 hours",
	}
	for _, c := range contents {
		mustStore(t, svc, c, "fact")
	}
	for query, want := range map[string]string{
		"CI runner":                     contents[0],
		"who is Priya":                  contents[1],
		"kimchi":                        contents[2],
		"postgresql version of billing": contents[3],
		"buildkite":                     contents[0],
	} {
		hits, err := svc.Recall(t.Context(), query, 3, memory.Filter{})
		require.NoError(t, err)
		require.NotEmpty(t, hits, query)
		assert.Equal(t, want, hits[0].Content, query)
	}
}

func TestSearchAndStatsCoverMemories(t *testing.T) {
	svc, _ := builtinService(t)
	for _, s := range fiveMemories {
		mustStore(t, svc, s, "fact")
	}
	_, _, err := svc.Store(t.Context(), memory.StoreInput{Content: "Prefer tabs in Makefiles", Type: "preference", Namespace: "project:x"})
	require.NoError(t, err)
	hits, err := svc.Search(t.Context(), "which database does the project use", "", 2)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, fiveMemories[3], hits[0].Content)
	hits, err = svc.Search(t.Context(), "tabs", "project:x", 5)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	hits, err = svc.Search(t.Context(), "tabs", "docs", 5)
	require.NoError(t, err)
	assert.Empty(t, hits, "a document namespace holds no memory")
	before, err := svc.Get(t.Context(), hits0(t, svc).ID)
	require.NoError(t, err)
	assert.Zero(t, before.AccessCount, "search records no access")

	st, err := svc.Stats(t.Context())
	require.NoError(t, err)
	assert.Equal(t, memory.Stats{Count: 6, GoldenRules: 0, Namespaces: []string{"global", "project:x"}}, st)
}

func hits0(t *testing.T, svc *memory.Service) core.ScoredMemory {
	t.Helper()
	hits, err := svc.Search(t.Context(), "dark mode", "", 1)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	return hits[0]
}

// Issue 25: agreeing memories are not contradictions, and a version change
// in near-identical texts is a conflict or a supersession, never a
// near-duplicate to delete.
func TestAnalysesDoNotMislead(t *testing.T) {
	for _, model := range []string{"static", ""} {
		t.Run("model "+cmp.Or(model, "default"), func(t *testing.T) {
			emb, err := embedding.New("", "", model, "")
			require.NoError(t, err)
			now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
			svc := memory.New("p", memstore.New(), emb, memory.WithClock(func() time.Time { return now }))
			store := func(content string) core.Memory {
				now = now.Add(time.Hour)
				m, _, err := svc.Store(t.Context(), memory.StoreInput{Content: content, Type: "fact", Namespace: "global"})
				require.NoError(t, err)
				return m
			}
			store("Always run the tests before merging")
			store("Never merge without running the tests")
			pg15 := store("Project uses PostgreSQL 15")
			pg16 := store("Project uses PostgreSQL 16")

			cs, _, err := svc.DetectContradictions(t.Context(), "", "", memory.DefaultContradictionThreshold)
			require.NoError(t, err)
			require.Len(t, cs, 1, "only the versions conflict: %+v", cs)
			assert.ElementsMatch(t, []string{pg15.ID, pg16.ID}, []string{cs[0].A.ID, cs[0].B.ID})
			assert.Contains(t, []string{"different values: 15 / 16", "different values: 16 / 15"}, cs[0].Reason)

			h, err := svc.AnalyzeHealth(t.Context(), "", memory.DefaultStaleDays)
			require.NoError(t, err)
			for _, d := range h.Duplicates {
				assert.NotContains(t, []string{pg15.ID, pg16.ID}, d.A.ID, "15 and 16 are not duplicates")
			}
			_, cands, err := svc.CheckSupersedes(t.Context(), pg16.ID, pg15.ID, memory.DefaultSupersedeThreshold)
			require.NoError(t, err)
			require.Len(t, cands, 1)
			assert.True(t, cands[0].Supersedes, cands[0].Reason)
		})
	}
}
