package memory_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/builtin"
	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
	"github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/neo4jstore"
	"github.com/vaultgraph/vaultgraph/server"
	memtools "github.com/vaultgraph/vaultgraph/tools/memory"
	"github.com/vaultgraph/vaultgraph/tools/toolstest"
)

func TestMain(m *testing.M) { os.Exit(neo4jtest.Main(m)) }

// stores runs fn once per store: the embedded one (a file in a temporary
// directory) and Neo4j (skipped when none is available), each on a
// project of its own.
func stores(t *testing.T, fn func(t *testing.T, st core.StoreProvider, project string)) {
	t.Run("embedded", func(t *testing.T) {
		s, err := memstore.Open(t.TempDir())
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close(context.Background()) })
		fn(t, s, "p")
	})
	t.Run("neo4j", func(t *testing.T) {
		srv := neo4jtest.Get(t)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		s, err := neo4jstore.Open(ctx, neo4jstore.Config{URI: srv.URI, User: srv.User, Password: srv.Password, Database: srv.Database})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close(context.Background()) })
		var b [6]byte
		_, _ = rand.Read(b[:])
		fn(t, s, "memtools-"+hex.EncodeToString(b[:]))
	})
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// connect serves the memory tools of svc over an in-process MCP client.
func connect(t *testing.T, svc *memory.Service) *client.Client {
	t.Helper()
	srv := server.New(server.Options{Tools: memtools.Tools(memtools.NewDeps(svc, quiet)), Logger: quiet})
	return toolstest.Client(t, srv)
}

func embedder(t *testing.T) core.Embedder {
	t.Helper()
	e, err := builtin.New()
	require.NoError(t, err)
	return e
}

// call calls a tool and returns its envelope's JSON text and isError.
func call(t *testing.T, c *client.Client, name, args string) (string, bool) {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = name
	if args != "" {
		req.Params.Arguments = json.RawMessage(args)
	}
	res, err := c.CallTool(t.Context(), req)
	require.NoError(t, err, "call %s", name)
	require.Len(t, res.Content, 1)
	text := res.Content[0].(mcp.TextContent).Text
	return text, res.IsError
}

// ok calls a tool that must succeed and decodes its data into v (if not
// nil); it returns the data's JSON.
func ok(t *testing.T, c *client.Client, name, args string, v any) string {
	t.Helper()
	text, isErr := call(t, c, name, args)
	var env struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(text), &env), text)
	require.True(t, env.Success && !isErr, "%s %s: %s", name, args, text)
	if v != nil {
		require.NoError(t, json.Unmarshal(env.Data, v))
	}
	return string(env.Data)
}

// fails calls a tool that must fail and returns its error message.
func fails(t *testing.T, c *client.Client, name, args string) string {
	t.Helper()
	text, isErr := call(t, c, name, args)
	var env struct {
		Success *bool  `json:"success"`
		Error   string `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(text), &env), text)
	require.True(t, isErr, "%s %s: want isError, got %s", name, args, text)
	require.NotNil(t, env.Success)
	require.False(t, *env.Success)
	require.NotEmpty(t, env.Error)
	return env.Error
}

type stored struct {
	ID          string  `json:"id"`
	ContentHash string  `json:"content_hash"`
	Namespace   string  `json:"namespace"`
	MemoryType  string  `json:"memory_type"`
	Duplicate   bool    `json:"duplicate"`
	Confidence  float64 `json:"confidence"`
}

func store(t *testing.T, c *client.Client, content, typ, ns string) string {
	t.Helper()
	var s stored
	ok(t, c, "memory_store", fmt.Sprintf(`{"content":%q,"memory_type":%q,"namespace":%q,"importance":0.8}`, content, typ, ns), &s)
	require.False(t, s.Duplicate)
	return s.ID
}

type feedback struct {
	MemoryID      string  `json:"memory_id"`
	OldConfidence float64 `json:"old_confidence"`
	NewConfidence float64 `json:"new_confidence"`
	Promoted      bool    `json:"promoted"`
	NewType       *string `json:"new_type"`
	MemoryType    string  `json:"memory_type"`
	EventID       string  `json:"event_id"`
}

func TestEveryMemoryToolOverMCP(t *testing.T) {
	stores(t, func(t *testing.T, st core.StoreProvider, project string) {
		now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
		clock := func() time.Time { return now }
		c := connect(t, memory.New(project, st, embedder(t), memory.WithClock(clock)))

		t.Run("memory_store", func(t *testing.T) { testStore(t, c) })
		t.Run("memory_recall", func(t *testing.T) { testRecall(t, c) })
		t.Run("memory_validate and golden rules", func(t *testing.T) { testValidate(t, c) })
		t.Run("memory_apply, memory_outcome and validation_history", func(t *testing.T) { testTryLearn(t, c) })
		t.Run("memory_context", func(t *testing.T) { testContext(t, c) })
		t.Run("memory_relate, memory_inspect_graph and memory_edge_forget", func(t *testing.T) { testGraph(t, c) })
		t.Run("memory_count and memory_list", func(t *testing.T) { testCountList(t, c) })
		t.Run("memory_detect_contradictions and memory_check_supersedes", func(t *testing.T) { testAnalyses(t, c) })
		now = now.Add(60 * 24 * time.Hour) // everything is stale now
		t.Run("memory_analyze_health", func(t *testing.T) { testHealth(t, c) })
		t.Run("memory_forget", func(t *testing.T) { testForget(t, c) })
	})
}

func testStore(t *testing.T, c *client.Client) {
	var first stored
	ok(t, c, "memory_store", `{"content":"User prefers dark mode for their IDE","memory_type":"preference","importance":0.8,"metadata":{"source":"chat"}}`, &first)
	assert.Regexp(t, `^mem_[0-9a-f]{16}$`, first.ID)
	assert.Regexp(t, `^sha256_[0-9a-f]{64}$`, first.ContentHash)
	assert.Equal(t, stored{ID: first.ID, ContentHash: first.ContentHash, Namespace: "global", MemoryType: "preference", Confidence: 0.3}, first)

	var dup stored
	ok(t, c, "memory_store", `{"content":"User prefers dark mode for their IDE","memory_type":"fact"}`, &dup)
	assert.True(t, dup.Duplicate)
	assert.Equal(t, first.ID, dup.ID, "the existing id")
	assert.Equal(t, "preference", dup.MemoryType, "the existing memory, unchanged")

	var other stored
	ok(t, c, "memory_store", `{"content":"User prefers dark mode for their IDE","namespace":"project:myapp"}`, &other)
	assert.False(t, other.Duplicate, "another namespace is another memory")
	assert.Equal(t, "session", other.MemoryType, "default type")
	ok(t, c, "memory_forget", fmt.Sprintf(`{"memory_id":%q}`, other.ID), nil)

	assert.Equal(t, "Invalid memory type: opinion", fails(t, c, "memory_store", `{"content":"x","memory_type":"opinion"}`))
	assert.Equal(t, "Invalid memory type: golden_rule", fails(t, c, "memory_store", `{"content":"x","memory_type":"golden_rule"}`))
	assert.Contains(t, fails(t, c, "memory_store", `{"content":"x","namespace":"team"}`), "Invalid namespace: team")
	assert.Contains(t, fails(t, c, "memory_store", `{"content":"x","namespace":"project:"}`), "Invalid namespace")
	assert.Contains(t, fails(t, c, "memory_store", `{"content":"x","importance":1.5}`), "importance")
	assert.Contains(t, fails(t, c, "memory_store", `{"memory_type":"fact"}`), "content")
	assert.Equal(t, "Content cannot be empty", fails(t, c, "memory_store", `{"content":"  "}`))
	assert.Contains(t, fails(t, c, "memory_store", `{"content":"x","namespace":"project:a\u0000b"}`), "control")
	assert.Contains(t, fails(t, c, "memory_store", `{"content":"x","namespace":"project:a\u202eb"}`), "control")
	assert.Contains(t, fails(t, c, "memory_recall", `{"query":"x","namespace":"project:a\u0007"}`), "Invalid namespace")
	assert.True(t, strings.HasPrefix(fails(t, c, "memory_store", fmt.Sprintf(`{"content":%q}`, strings.Repeat("a", 8001))),
		"Content is too long: 8001 characters, the limit is 8000"))
	assert.Contains(t, fails(t, c, "memory_store", `{"content":"x","colour":"red"}`), "colour")
}

type recalled struct {
	Memories []struct {
		ID          string         `json:"id"`
		Content     string         `json:"content"`
		MemoryType  string         `json:"memory_type"`
		Namespace   string         `json:"namespace"`
		Confidence  float64        `json:"confidence"`
		Importance  float64        `json:"importance"`
		Score       float64        `json:"score"`
		Metadata    map[string]any `json:"metadata"`
		AccessCount int            `json:"access_count"`
	} `json:"memories"`
	Total   int            `json:"total"`
	Query   string         `json:"query"`
	Filters map[string]any `json:"filters"`
	Note    string         `json:"note"`
}

func testRecall(t *testing.T, c *client.Client) {
	store(t, c, "Project uses PostgreSQL 15", "fact", "project:myapp")
	store(t, c, "Chose FastAPI over Flask for performance", "decision", "project:myapp")
	var r recalled
	ok(t, c, "memory_recall", `{"query":"dark mode preferences"}`, &r)
	require.NotEmpty(t, r.Memories)
	top := r.Memories[0]
	assert.Equal(t, "User prefers dark mode for their IDE", top.Content)
	assert.Equal(t, "preference", top.MemoryType)
	assert.Equal(t, 0.3, top.Confidence)
	assert.Equal(t, 0.8, top.Importance)
	assert.Equal(t, map[string]any{"source": "chat"}, top.Metadata)
	assert.Equal(t, 1, top.AccessCount, "recall records the access")
	assert.Greater(t, top.Score, 0.5)
	assert.LessOrEqual(t, top.Score, 1.0)
	for i := 1; i < len(r.Memories); i++ {
		assert.LessOrEqual(t, r.Memories[i].Score, r.Memories[i-1].Score, "by score")
	}
	assert.Equal(t, len(r.Memories), r.Total)
	assert.Equal(t, "dark mode preferences", r.Query)
	assert.Equal(t, map[string]any{"namespace": nil, "memory_type": nil, "min_importance": nil, "min_confidence": nil}, r.Filters)

	ok(t, c, "memory_recall", `{"query":"database","namespace":"project:myapp","memory_type":"fact","n_results":1}`, &r)
	require.Len(t, r.Memories, 1)
	assert.Equal(t, "Project uses PostgreSQL 15", r.Memories[0].Content)
	assert.Equal(t, "project:myapp", r.Filters["namespace"])
	ok(t, c, "memory_recall", `{"query":"database","min_confidence":0.31}`, &r)
	assert.Empty(t, r.Memories, "every memory is at 0.3")
	assert.Equal(t, 0, r.Total)
	ok(t, c, "memory_recall", `{"query":"database","min_importance":0.9}`, &r)
	assert.Empty(t, r.Memories)
	assert.Contains(t, r.Note, "relevance floor", "an empty answer says why")

	// Nothing relevant is an answer (issue 49.7): no memory is listed for
	// a query none answers, and the note says so.
	r = recalled{}
	ok(t, c, "memory_recall", `{"query":"sourdough bread recipe with a long fermentation"}`, &r)
	assert.Empty(t, r.Memories)
	assert.Equal(t, 0, r.Total)
	assert.Contains(t, r.Note, "No memory is relevant")
	r = recalled{}
	ok(t, c, "memory_recall", `{"query":"dark mode preferences"}`, &r)
	require.NotEmpty(t, r.Memories)
	assert.Empty(t, r.Note, "no note when memories are recalled")

	assert.Equal(t, "Query cannot be empty", fails(t, c, "memory_recall", `{"query":"   "}`))
	assert.Equal(t, "Invalid memory type: opinion", fails(t, c, "memory_recall", `{"query":"x","memory_type":"opinion"}`))
	assert.Contains(t, fails(t, c, "memory_recall", `{"query":"x","n_results":0}`), "n_results")
}

func idOf(t *testing.T, c *client.Client, content string) string {
	t.Helper()
	var r recalled
	ok(t, c, "memory_recall", fmt.Sprintf(`{"query":%q,"n_results":1}`, content), &r)
	require.NotEmpty(t, r.Memories)
	require.Equal(t, content, r.Memories[0].Content)
	return r.Memories[0].ID
}

func testValidate(t *testing.T, c *client.Client) {
	id := store(t, c, "Always use type hints in Python code", "pattern", "global")
	want := []float64{0.4, 0.5, 0.6, 0.7, 0.8, 0.9}
	for i, w := range want {
		var fb feedback
		raw := ok(t, c, "memory_validate", fmt.Sprintf(`{"memory_id":%q,"was_helpful":true,"context":"step %d"}`, id, i), &fb)
		assert.Equal(t, w, fb.NewConfidence, "step %d: exact, no float drift", i)
		assert.Equal(t, i == 5, fb.Promoted, "promoted exactly when reaching 0.9")
		if i == 5 {
			require.NotNil(t, fb.NewType)
			assert.Equal(t, "golden_rule", *fb.NewType)
			assert.Contains(t, raw, `"new_confidence":0.9,`)
		} else {
			assert.Nil(t, fb.NewType, "new_type only when promoted")
		}
	}
	var fb feedback
	ok(t, c, "memory_validate", fmt.Sprintf(`{"memory_id":%q,"was_helpful":true}`, id), &fb)
	assert.Equal(t, feedback{MemoryID: id, OldConfidence: 0.9, NewConfidence: 1, MemoryType: "golden_rule", EventID: fb.EventID}, fb, "promoted once")
	ok(t, c, "memory_validate", fmt.Sprintf(`{"memory_id":%q,"was_helpful":true}`, id), &fb)
	assert.Equal(t, 1.0, fb.NewConfidence, "clamped at 1.0")
	ok(t, c, "memory_validate", fmt.Sprintf(`{"memory_id":%q,"was_helpful":false}`, id), &fb)
	assert.Equal(t, 0.85, fb.NewConfidence)
	assert.Equal(t, "golden_rule", fb.MemoryType, "a golden rule stays one")

	low := store(t, c, "Currently working on authentication feature", "session", "project:myapp")
	ok(t, c, "memory_validate", fmt.Sprintf(`{"memory_id":%q,"was_helpful":false}`, low), &fb)
	assert.Equal(t, 0.15, fb.NewConfidence)
	ok(t, c, "memory_validate", fmt.Sprintf(`{"memory_id":%q,"was_helpful":false}`, low), &fb)
	assert.Equal(t, 0.0, fb.NewConfidence, "clamped at 0")

	assert.Equal(t, "Memory not found: mem_0000000000000000", fails(t, c, "memory_validate", `{"memory_id":"mem_0000000000000000","was_helpful":true}`))
	assert.Contains(t, fails(t, c, "memory_validate", `{"memory_id":"x"}`), "was_helpful")
	assert.Contains(t, fails(t, c, "memory_validate", `{"memory_id":"x","was_helpful":"yes"}`), "was_helpful")
}

type history struct {
	MemoryID *string `json:"memory_id"`
	Events   []struct {
		EventID       string  `json:"event_id"`
		MemoryID      string  `json:"memory_id"`
		EventType     string  `json:"event_type"`
		Positive      *bool   `json:"positive"`
		Context       string  `json:"context"`
		ApplyEventID  string  `json:"apply_event_id"`
		SessionID     string  `json:"session_id"`
		OldConfidence float64 `json:"old_confidence"`
		NewConfidence float64 `json:"new_confidence"`
		Promoted      bool    `json:"promoted"`
		Timestamp     string  `json:"timestamp"`
	} `json:"events"`
	Count   int `json:"count"`
	Summary struct {
		TotalEvents       int      `json:"total_events"`
		Validations       int      `json:"validations"`
		Applications      int      `json:"applications"`
		Outcomes          int      `json:"outcomes"`
		Positive          int      `json:"positive"`
		Negative          int      `json:"negative"`
		SuccessRate       *float64 `json:"success_rate"`
		Promotions        int      `json:"promotions"`
		CurrentConfidence *float64 `json:"current_confidence"`
		MemoryType        *string  `json:"memory_type"`
	} `json:"summary"`
}

func testTryLearn(t *testing.T, c *client.Client) {
	id := store(t, c, "Run the linter before every commit", "pattern", "global")
	var applied struct {
		MemoryID   string  `json:"memory_id"`
		EventID    string  `json:"event_id"`
		EventType  string  `json:"event_type"`
		Confidence float64 `json:"confidence"`
		AppliedAt  string  `json:"applied_at"`
	}
	ok(t, c, "memory_apply", fmt.Sprintf(`{"memory_id":%q,"context":"commit of the auth feature"}`, id), &applied)
	assert.Equal(t, id, applied.MemoryID)
	assert.Equal(t, "apply", applied.EventType)
	assert.Equal(t, 0.3, applied.Confidence, "TRY does not change confidence")
	assert.Regexp(t, `^evt_[0-9a-f]{16}$`, applied.EventID)

	var out struct {
		feedback
		Success      bool   `json:"success"`
		ApplyEventID string `json:"apply_event_id"`
	}
	ok(t, c, "memory_outcome", fmt.Sprintf(`{"memory_id":%q,"success":true,"outcome":"lint caught a bug","event_id":%q}`, id, applied.EventID), &out)
	assert.Equal(t, 0.3, out.OldConfidence)
	assert.Equal(t, 0.4, out.NewConfidence)
	assert.True(t, out.Success)
	assert.Equal(t, applied.EventID, out.ApplyEventID)
	assert.Equal(t, "Application already closed: "+applied.EventID+" (its outcome is recorded; call memory_apply again to record another)",
		fails(t, c, "memory_outcome", fmt.Sprintf(`{"memory_id":%q,"success":true,"event_id":%q}`, id, applied.EventID)))
	ok(t, c, "memory_outcome", fmt.Sprintf(`{"memory_id":%q,"success":false}`, id), &out)
	assert.Equal(t, 0.25, out.NewConfidence, "0.4 - 0.15")
	assert.Contains(t, fails(t, c, "memory_outcome", fmt.Sprintf(`{"memory_id":%q,"success":true,"event_id":"evt_nope"}`, id)), "Application not found: evt_nope")
	assert.Equal(t, "Memory not found: mem_1234567890abcdef", fails(t, c, "memory_outcome", `{"memory_id":"mem_1234567890abcdef","success":true,"event_id":"evt_x"}`))
	assert.Equal(t, "Memory not found: nope", fails(t, c, "memory_apply", `{"memory_id":"nope"}`))

	var h history
	ok(t, c, "validation_history", fmt.Sprintf(`{"memory_id":%q}`, id), &h)
	require.Len(t, h.Events, 3)
	assert.Equal(t, []string{"apply", "outcome", "outcome"}, []string{h.Events[0].EventType, h.Events[1].EventType, h.Events[2].EventType})
	assert.Equal(t, "commit of the auth feature", h.Events[0].Context)
	assert.Nil(t, h.Events[0].Positive)
	assert.Equal(t, applied.EventID, h.Events[1].ApplyEventID)
	assert.Equal(t, 1, h.Summary.Applications)
	assert.Equal(t, 2, h.Summary.Outcomes)
	require.NotNil(t, h.Summary.SuccessRate)
	assert.Equal(t, 0.5, *h.Summary.SuccessRate)
	require.NotNil(t, h.Summary.CurrentConfidence)
	assert.Equal(t, 0.25, *h.Summary.CurrentConfidence)

	ok(t, c, "validation_history", fmt.Sprintf(`{"memory_id":%q,"limit":1}`, id), &h)
	require.Len(t, h.Events, 1, "the newest")
	assert.Equal(t, 3, h.Summary.TotalEvents, "the summary counts every event")
	ok(t, c, "validation_history", `{"event_type":"validate"}`, &h)
	assert.Equal(t, 11, h.Count, "nine of the golden rule, two of the session")
	for _, ev := range h.Events {
		assert.Equal(t, "validate", ev.EventType)
	}
	assert.Nil(t, h.MemoryID)
	assert.Nil(t, h.Summary.CurrentConfidence)
	assert.Equal(t, 1, h.Summary.Promotions)
	assert.Equal(t, "Memory not found: mem_1234567890abcdef", fails(t, c, "validation_history", `{"memory_id":"mem_1234567890abcdef"}`))
	assert.Contains(t, fails(t, c, "validation_history", `{"event_type":"teach"}`), "event_type")
}

type contextData struct {
	Context         string   `json:"context"`
	TokenEstimate   int      `json:"token_estimate"`
	MemoryCount     int      `json:"memory_count"`
	GoldenRuleCount int      `json:"golden_rule_count"`
	MemoryIDs       []string `json:"memory_ids"`
}

func testContext(t *testing.T, c *client.Client) {
	var cx contextData
	ok(t, c, "memory_context", `{}`, &cx)
	assert.True(t, strings.HasPrefix(cx.Context, "## Relevant Memories\n\n### Golden Rules (High Confidence)\n- Always use type hints in Python code [confidence: 0.85]\n"), cx.Context)
	assert.Contains(t, cx.Context, "\n### Preferences\n- User prefers dark mode for their IDE [confidence: 0.3]\n")
	assert.Contains(t, cx.Context, "\n### Decisions\n- Chose FastAPI over Flask for performance [confidence: 0.3]\n")
	assert.Less(t, strings.Index(cx.Context, "### Preferences"), strings.Index(cx.Context, "### Decisions"))
	assert.Equal(t, 1, cx.GoldenRuleCount)
	assert.Equal(t, len(cx.MemoryIDs), cx.MemoryCount)
	assert.Equal(t, (len(cx.Context)+3)/4, cx.TokenEstimate)

	ok(t, c, "memory_context", `{"query":"which PostgreSQL version","namespace":"project:myapp","token_budget":4000}`, &cx)
	assert.Contains(t, cx.Context, "### Facts\n- Project uses PostgreSQL 15 [confidence: 0.3]")
	assert.NotContains(t, cx.Context, "dark mode", "only project:myapp and global memories similar to the query")

	ok(t, c, "memory_context", `{"token_budget":30}`, &cx)
	assert.LessOrEqual(t, cx.TokenEstimate, 30)
	assert.Equal(t, 1, cx.MemoryCount, "the golden rule fits, nothing else")
	ok(t, c, "memory_context", `{"token_budget":2}`, &cx)
	assert.Equal(t, 0, cx.MemoryCount)
	assert.LessOrEqual(t, cx.TokenEstimate, 2)
	assert.Contains(t, fails(t, c, "memory_context", `{"token_budget":0}`), "token_budget")
	assert.Contains(t, fails(t, c, "memory_context", `{"namespace":"nope"}`), "Invalid namespace")
}

type graphData struct {
	Root      string `json:"root"`
	Format    string `json:"format"`
	NodeCount int    `json:"node_count"`
	EdgeCount int    `json:"edge_count"`
	Nodes     []struct {
		ID    string  `json:"id"`
		Depth int     `json:"depth"`
		Score float64 `json:"score"`
	} `json:"nodes"`
	Edges []struct {
		Source       string  `json:"source"`
		Target       string  `json:"target"`
		RelationType string  `json:"relation_type"`
		Weight       float64 `json:"weight"`
	} `json:"edges"`
	Paths []struct {
		Nodes         []string `json:"nodes"`
		RelationTypes []string `json:"relation_types"`
		Score         float64  `json:"score"`
	} `json:"paths"`
	Mermaid string `json:"mermaid"`
}

func testGraph(t *testing.T, c *client.Client) {
	a := store(t, c, "Use PostgreSQL for persistence", "decision", "project:graph")
	b := store(t, c, "Use SQLite for persistence", "decision", "project:graph")
	d := store(t, c, "Tests need a real database", "fact", "project:graph")
	e := store(t, c, "CI runs the integration suite", "fact", "project:graph")
	var rel struct {
		Created bool    `json:"created"`
		Weight  float64 `json:"weight"`
	}
	ok(t, c, "memory_relate", fmt.Sprintf(`{"source_id":%q,"target_id":%q,"relation_type":"supersedes","weight":0.8}`, a, b), &rel)
	assert.True(t, rel.Created)
	ok(t, c, "memory_relate", fmt.Sprintf(`{"source_id":%q,"target_id":%q,"relation_type":"supersedes","weight":0.5}`, a, b), &rel)
	assert.False(t, rel.Created, "re-weighed")
	assert.Equal(t, 0.5, rel.Weight)
	ok(t, c, "memory_relate", fmt.Sprintf(`{"source_id":%q,"target_id":%q,"relation_type":"caused_by"}`, a, d), &rel)
	assert.Equal(t, 1.0, rel.Weight, "default weight")
	ok(t, c, "memory_relate", fmt.Sprintf(`{"source_id":%q,"target_id":%q,"relation_type":"relates_to","weight":0.5}`, e, d), &rel)

	assert.Contains(t, fails(t, c, "memory_relate", fmt.Sprintf(`{"source_id":%q,"target_id":%q,"relation_type":"likes"}`, a, b)), "relation_type")
	assert.Contains(t, fails(t, c, "memory_relate", fmt.Sprintf(`{"source_id":%q,"target_id":%q,"relation_type":"relates_to"}`, a, a)), "itself")
	assert.Contains(t, fails(t, c, "memory_relate", fmt.Sprintf(`{"source_id":%q,"target_id":%q,"relation_type":"relates_to","weight":1.5}`, a, b)), "weight")
	assert.Equal(t, "Memory not found: mem_1234567890abcdef", fails(t, c, "memory_relate", fmt.Sprintf(`{"source_id":%q,"target_id":"mem_1234567890abcdef","relation_type":"relates_to"}`, a)))

	var g graphData
	ok(t, c, "memory_inspect_graph", fmt.Sprintf(`{"memory_id":%q}`, a), &g)
	assert.Equal(t, "json", g.Format)
	require.Len(t, g.Nodes, 4)
	assert.Equal(t, a, g.Nodes[0].ID)
	assert.Equal(t, 1.0, g.Nodes[0].Score)
	assert.Equal(t, d, g.Nodes[1].ID, "depth 1, score 1 x 0.7")
	assert.Equal(t, 0.7, g.Nodes[1].Score)
	assert.Equal(t, b, g.Nodes[2].ID)
	assert.Equal(t, 0.35, g.Nodes[2].Score, "0.5 x 0.7")
	assert.Equal(t, e, g.Nodes[3].ID)
	assert.Equal(t, 2, g.Nodes[3].Depth)
	assert.Equal(t, 0.245, g.Nodes[3].Score, "0.7 x 0.5 x 0.7")
	assert.Equal(t, 3, g.EdgeCount)
	require.Len(t, g.Paths, 3)
	assert.Equal(t, []string{a, d, e}, g.Paths[2].Nodes)
	assert.Equal(t, []string{"caused_by", "relates_to"}, g.Paths[2].RelationTypes)

	ok(t, c, "memory_inspect_graph", fmt.Sprintf(`{"memory_id":%q,"max_depth":1,"decay_factor":1}`, a), &g)
	assert.Equal(t, 3, g.NodeCount)
	var mm graphData
	ok(t, c, "memory_inspect_graph", fmt.Sprintf(`{"memory_id":%q,"output_format":"mermaid"}`, a), &mm)
	assert.Equal(t, "mermaid", mm.Format)
	assert.True(t, strings.HasPrefix(mm.Mermaid, "flowchart LR\n"), mm.Mermaid)
	assert.Contains(t, mm.Mermaid, `m0["decision: Use PostgreSQL for persistence"]`)
	assert.Contains(t, mm.Mermaid, "m0 -->|supersedes 0.5| m2")
	assert.Nil(t, mm.Nodes, "no nodes in mermaid format")
	assert.Equal(t, 4, mm.NodeCount)
	assert.Equal(t, "Memory not found: nope", fails(t, c, "memory_inspect_graph", `{"memory_id":"nope"}`))
	assert.Contains(t, fails(t, c, "memory_inspect_graph", fmt.Sprintf(`{"memory_id":%q,"max_depth":6}`, a)), "max_depth")

	var forgot struct {
		DeletedCount int     `json:"deleted_count"`
		TargetID     *string `json:"target_id"`
	}
	ok(t, c, "memory_edge_forget", fmt.Sprintf(`{"source_id":%q,"target_id":%q,"relation_type":"relates_to"}`, a, b), &forgot)
	assert.Equal(t, 0, forgot.DeletedCount, "no such relation: not an error")
	ok(t, c, "memory_edge_forget", fmt.Sprintf(`{"source_id":%q,"target_id":%q}`, a, b), &forgot)
	assert.Equal(t, 1, forgot.DeletedCount)
	ok(t, c, "memory_edge_forget", fmt.Sprintf(`{"source_id":%q}`, d), &forgot)
	assert.Equal(t, 2, forgot.DeletedCount, "both directions")
	assert.Nil(t, forgot.TargetID)
	ok(t, c, "memory_inspect_graph", fmt.Sprintf(`{"memory_id":%q}`, a), &g)
	assert.Equal(t, 1, g.NodeCount)
	assert.Equal(t, "Memory not found: nope", fails(t, c, "memory_edge_forget", `{"source_id":"nope"}`))
}

func testCountList(t *testing.T, c *client.Client) {
	var n struct {
		Count int `json:"count"`
	}
	ok(t, c, "memory_count", `{}`, &n)
	total := n.Count
	assert.Equal(t, 10, total)
	ok(t, c, "memory_count", `{"namespace":"project:graph","memory_type":"fact"}`, &n)
	assert.Equal(t, 2, n.Count)
	ok(t, c, "memory_count", `{"memory_type":"golden_rule"}`, &n)
	assert.Equal(t, 1, n.Count)
	ok(t, c, "memory_count", `{"min_confidence":0.3}`, &n)
	assert.Equal(t, 8, n.Count, "all but the two pushed under 0.3")
	assert.Equal(t, "Invalid memory type: x", fails(t, c, "memory_count", `{"memory_type":"x"}`))

	var page struct {
		Memories []struct {
			ID         string  `json:"id"`
			Confidence float64 `json:"confidence"`
		} `json:"memories"`
		Total   int  `json:"total"`
		Count   int  `json:"count"`
		Limit   int  `json:"limit"`
		Offset  int  `json:"offset"`
		HasMore bool `json:"has_more"`
	}
	seen := map[string]bool{}
	for offset := 0; ; offset += 5 {
		ok(t, c, "memory_list", fmt.Sprintf(`{"limit":5,"offset":%d,"order_by":"confidence"}`, offset), &page)
		assert.Equal(t, total, page.Total)
		for i, m := range page.Memories {
			assert.False(t, seen[m.ID], "pages do not overlap")
			seen[m.ID] = true
			if i > 0 {
				assert.LessOrEqual(t, m.Confidence, page.Memories[i-1].Confidence, "desc by default")
			}
		}
		if !page.HasMore {
			break
		}
	}
	assert.Len(t, seen, total)
	ok(t, c, "memory_list", `{"order_by":"confidence","order":"asc","limit":1}`, &page)
	assert.Equal(t, 0.0, page.Memories[0].Confidence)
	assert.True(t, page.HasMore)
	assert.Contains(t, fails(t, c, "memory_list", `{"order_by":"name"}`), "order_by")
	assert.Contains(t, fails(t, c, "memory_list", `{"limit":1001}`), "limit")
}

func testAnalyses(t *testing.T, c *client.Client) {
	dark := idOf(t, c, "User prefers dark mode for their IDE")
	light := store(t, c, "User prefers light mode for their IDE", "preference", "global")
	var cs struct {
		Contradictions []struct {
			MemoryA    struct{ ID string } `json:"memory_a"`
			MemoryB    struct{ ID string } `json:"memory_b"`
			Similarity float64             `json:"similarity"`
			Reason     string              `json:"reason"`
		} `json:"contradictions"`
		Count    int `json:"count"`
		Analyzed int `json:"analyzed"`
	}
	ok(t, c, "memory_detect_contradictions", fmt.Sprintf(`{"memory_id":%q}`, dark), &cs)
	require.Equal(t, 1, cs.Count, "%+v", cs)
	pair := []string{cs.Contradictions[0].MemoryA.ID, cs.Contradictions[0].MemoryB.ID}
	assert.ElementsMatch(t, []string{dark, light}, pair)
	assert.Equal(t, "opposite terms: light / dark", cs.Contradictions[0].Reason)
	assert.GreaterOrEqual(t, cs.Contradictions[0].Similarity, 0.75)
	ok(t, c, "memory_detect_contradictions", `{"namespace":"project:myapp"}`, &cs)
	assert.Equal(t, 0, cs.Count)
	ok(t, c, "memory_detect_contradictions", fmt.Sprintf(`{"memory_id":%q,"similarity_threshold":0.99}`, dark), &cs)
	assert.Equal(t, 0, cs.Count, "under the threshold")

	var sup struct {
		Supersedes    bool     `json:"supersedes"`
		SupersededIDs []string `json:"superseded_ids"`
		Candidates    []struct {
			ID         string  `json:"id"`
			Similarity float64 `json:"similarity"`
			Supersedes bool    `json:"supersedes"`
			Reason     string  `json:"reason"`
		} `json:"candidates"`
	}
	ok(t, c, "memory_check_supersedes", fmt.Sprintf(`{"memory_id":%q,"target_id":%q}`, light, dark), &sup)
	assert.False(t, sup.Supersedes, "created at the same instant (test clock): not newer")
	require.Len(t, sup.Candidates, 1)
	assert.Equal(t, "not newer than the other memory", sup.Candidates[0].Reason)
	pg := idOf(t, c, "Project uses PostgreSQL 15")
	ok(t, c, "memory_check_supersedes", fmt.Sprintf(`{"memory_id":%q,"target_id":%q}`, pg, dark), &sup)
	assert.Equal(t, "not similar enough", sup.Candidates[0].Reason)
	ok(t, c, "memory_check_supersedes", fmt.Sprintf(`{"memory_id":%q}`, pg), &sup)
	assert.Empty(t, sup.Candidates, "nothing in its namespace is similar")
	assert.NotNil(t, sup.SupersededIDs)
	assert.Contains(t, fails(t, c, "memory_check_supersedes", fmt.Sprintf(`{"memory_id":%q,"target_id":%q}`, pg, pg)), "same memory")
	assert.Equal(t, "Memory not found: nope", fails(t, c, "memory_check_supersedes", `{"memory_id":"nope"}`))
}

func testHealth(t *testing.T, c *client.Client) {
	var h struct {
		TotalMemories     int            `json:"total_memories"`
		ByType            map[string]int `json:"by_type"`
		GoldenRuleCount   int            `json:"golden_rule_count"`
		AverageConfidence float64        `json:"average_confidence"`
		LowConfidence     struct {
			Count int `json:"count"`
		} `json:"low_confidence"`
		Stale struct {
			Count int `json:"count"`
		} `json:"stale"`
		Contradictions struct {
			Count int `json:"count"`
		} `json:"contradictions"`
		HealthScore     float64  `json:"health_score"`
		Recommendations []string `json:"recommendations"`
	}
	ok(t, c, "memory_analyze_health", `{}`, &h)
	assert.Equal(t, 11, h.TotalMemories)
	assert.Equal(t, 1, h.ByType["golden_rule"])
	assert.Equal(t, 1, h.GoldenRuleCount)
	assert.Equal(t, 2, h.LowConfidence.Count)
	assert.Equal(t, 11, h.Stale.Count, "60 days later, nothing was accessed in 30")
	assert.Equal(t, 1, h.Contradictions.Count)
	assert.Equal(t, 0.0, h.HealthScore)
	assert.Greater(t, h.AverageConfidence, 0.0)
	joined := strings.Join(h.Recommendations, "\n")
	assert.Contains(t, joined, "1 contradicting pair")
	assert.Contains(t, joined, "2 memories below confidence 0.3")
	assert.Contains(t, joined, "11 memories not accessed in 30 days")
	ok(t, c, "memory_analyze_health", `{"stale_days":365,"namespace":"project:graph"}`, &h)
	assert.Equal(t, 4, h.TotalMemories)
	assert.Equal(t, 0, h.Stale.Count)
	assert.Equal(t, 1.0, h.HealthScore)
}

type forgotten struct {
	DeletedIDs     []string `json:"deleted_ids"`
	DeletedCount   int      `json:"deleted_count"`
	ProtectedIDs   []string `json:"protected_ids"`
	Mode           string   `json:"mode"`
	DryRun         bool     `json:"dry_run"`
	WouldDeleteIDs []string `json:"would_delete_ids"`
	Matches        []struct {
		ID    string  `json:"id"`
		Score float64 `json:"score"`
	} `json:"matches"`
}

func testForget(t *testing.T, c *client.Client) {
	golden := idOf(t, c, "Always use type hints in Python code")
	var f forgotten
	ok(t, c, "memory_forget", fmt.Sprintf(`{"memory_id":%q}`, golden), &f)
	assert.Equal(t, forgotten{DeletedIDs: []string{}, ProtectedIDs: []string{golden}, Mode: "id"}, f, "a golden rule is protected")
	f = forgotten{}
	ok(t, c, "memory_forget", fmt.Sprintf(`{"input_value":%q,"force":true}`, golden), &f)
	assert.Equal(t, forgotten{DeletedIDs: []string{golden}, DeletedCount: 1, ProtectedIDs: []string{}, Mode: "id"}, f, "input_value detected as an id")
	assert.Equal(t, "Memory not found: "+golden, fails(t, c, "memory_forget", fmt.Sprintf(`{"memory_id":%q}`, golden)))

	pg := idOf(t, c, "Project uses PostgreSQL 15")
	assert.Equal(t, "Memory not found: "+pg[:len(pg)-1], fails(t, c, "memory_forget", fmt.Sprintf(`{"input_value":%q}`, pg[:len(pg)-1])),
		"a mistyped id is an id")
	f = forgotten{}
	ok(t, c, "memory_forget", `{"query":"kimchi recipe","n_results":5}`, &f)
	assert.Empty(t, f.DeletedIDs, "a query that matches nothing deletes nothing")
	assert.Empty(t, f.Matches)
	f = forgotten{}
	ok(t, c, "memory_forget", `{"input_value":"PostgreSQL 15","namespace":"project:myapp","n_results":1,"dry_run":true}`, &f)
	assert.True(t, f.DryRun)
	assert.Empty(t, f.DeletedIDs)
	assert.Equal(t, []string{pg}, f.WouldDeleteIDs)
	require.Len(t, f.Matches, 1)
	assert.Equal(t, pg, f.Matches[0].ID)
	f = forgotten{}
	ok(t, c, "memory_forget", `{"input_value":"PostgreSQL 15","namespace":"project:myapp","n_results":1}`, &f)
	assert.Equal(t, "query", f.Mode)
	assert.Equal(t, []string{pg}, f.DeletedIDs)
	assert.Nil(t, f.WouldDeleteIDs, "only dry runs say would_delete_ids")
	ok(t, c, "memory_forget", `{"query":"PostgreSQL database version","namespace":"project:other"}`, &f)
	assert.Empty(t, f.DeletedIDs, "nothing in that namespace")
	assert.Contains(t, fails(t, c, "memory_forget", `{}`), "Provide memory_id, query or input_value")
	assert.Contains(t, fails(t, c, "memory_forget", `{"memory_id":"x","namespace":"bad"}`), "Invalid namespace")

	var n struct {
		Count int `json:"count"`
	}
	ok(t, c, "memory_count", `{}`, &n)
	assert.Equal(t, 9, n.Count)
}

// Without an embedder the tools that need similarity are not offered and
// the others still work.
func TestWithoutEmbedder(t *testing.T) {
	c := connect(t, memory.New("p", memstore.New(), nil))
	res, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	assert.Len(t, names, 13)
	assert.NotContains(t, names, "memory_recall")
	var s stored
	ok(t, c, "memory_store", `{"content":"no vectors here"}`, &s)
	var fb feedback
	ok(t, c, "memory_validate", fmt.Sprintf(`{"memory_id":%q,"was_helpful":true}`, s.ID), &fb)
	assert.Equal(t, 0.4, fb.NewConfidence)
	assert.Contains(t, fails(t, c, "memory_forget", `{"query":"vectors"}`), "Semantic search is off")
	var cx contextData
	ok(t, c, "memory_context", `{}`, &cx)
	assert.Equal(t, 1, cx.MemoryCount)
}
