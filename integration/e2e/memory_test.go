package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// The memory tools of spec 004 through the real binary, on both stores:
// a representative flow, a restart, and a SIGKILL in the middle of a
// stream of writes after which every acknowledged write must be there.

// memoryToolNames are the sixteen memory tools.
var memoryToolNames = sorted([]string{
	"memory_store", "memory_recall", "memory_validate", "memory_forget", "memory_context",
	"memory_apply", "memory_outcome", "memory_relate", "memory_edge_forget", "memory_inspect_graph",
	"memory_count", "memory_list", "validation_history",
	"memory_detect_contradictions", "memory_check_supersedes", "memory_analyze_health",
})

// memoryEnv is the environment of a memory server: the built-in embedder
// (the suite's default is none).
func memoryEnv(t *testing.T, st store) []string {
	return processEnv(t, st, "VAULTGRAPH_EMBEDDING_PROVIDER=builtin")
}

func memoryArgs(st store, vault string) []string {
	return append([]string{"serve", "--vault", vault, "--toolsets", "memory"}, st.args...)
}

// startMemory spawns "vaultgraph serve --toolsets memory" under a stdio
// client, initialized. It stops when t ends.
func startMemory(t *testing.T, st store, vault string) *client.Client {
	t.Helper()
	c, _ := stdioClient(t, memoryEnv(t, st), memoryArgs(st, vault))
	initialize(t, c)
	return c
}

// envelopeOf decodes a spec 004 answer: data for a success, else the error.
func envelopeOf(t *testing.T, r reply, data any) string {
	t.Helper()
	var env struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
		Error   string          `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.text), &env); err != nil {
		t.Fatalf("answer %.300q is not spec 004's envelope: %v", r.text, err)
	}
	if env.Success != !r.isError {
		t.Fatalf("success %v but isError %v: %.300s", env.Success, r.isError, r.text)
	}
	if env.Success && data != nil {
		if err := json.Unmarshal(env.Data, data); err != nil {
			t.Fatalf("data %.300q: %v", env.Data, err)
		}
	}
	return env.Error
}

// memOK calls a memory tool that must succeed and decodes its data.
func memOK(t *testing.T, c *client.Client, name string, args any, data any) {
	t.Helper()
	r := callTool(t, c, name, args)
	if r.isError {
		t.Fatalf("%s %v: %.300s", name, args, r.text)
	}
	envelopeOf(t, r, data)
}

// memFail calls a memory tool that must fail and returns its error.
func memFail(t *testing.T, c *client.Client, name string, args any) string {
	t.Helper()
	r := callTool(t, c, name, args)
	if !r.isError {
		t.Fatalf("%s %v: want an error, got %.300s", name, args, r.text)
	}
	return envelopeOf(t, r, nil)
}

type memStored struct {
	ID         string  `json:"id"`
	Duplicate  bool    `json:"duplicate"`
	Confidence float64 `json:"confidence"`
}

type memListed struct {
	Memories []struct {
		ID         string  `json:"id"`
		Content    string  `json:"content"`
		MemoryType string  `json:"memory_type"`
		Confidence float64 `json:"confidence"`
	} `json:"memories"`
	Total int `json:"total"`
}

type memHistory struct {
	Events []struct {
		EventID   string `json:"event_id"`
		MemoryID  string `json:"memory_id"`
		EventType string `json:"event_type"`
	} `json:"events"`
	Summary struct {
		TotalEvents int `json:"total_events"`
	} `json:"summary"`
}

func TestMemoryTools(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st store) {
		vault := copyVault(t, nil)
		var golden, other string
		t.Run("flow", func(t *testing.T) {
			c := startMemory(t, st, vault)
			// The toolset is spec 004 whole: these sixteen and the nine
			// document tools (documents_test.go); 004's search keeps its
			// name because the graph toolset is not enabled beside it.
			want := sorted(append(slices.Clone(memoryToolNames), "index_file", "index_directory", "search",
				"search_with_filters", "search_with_budget", "delete_chunks", "delete_file", "clear_index", "get_index_stats"))
			if got := toolNames(listTools(t, c)); !slices.Equal(got, want) {
				t.Fatalf("tools/list with --toolsets memory:\n got %v\nwant %v", got, want)
			}
			var s memStored
			memOK(t, c, "memory_store", map[string]any{"content": "Always use type hints in Python code", "memory_type": "pattern"}, &s)
			golden = s.ID
			if s.Confidence != 0.3 || s.Duplicate {
				t.Fatalf("stored %+v", s)
			}
			memOK(t, c, "memory_store", map[string]any{"content": "Always use type hints in Python code", "memory_type": "fact"}, &s)
			if !s.Duplicate || s.ID != golden {
				t.Fatalf("duplicate: %+v, want id %s", s, golden)
			}
			memOK(t, c, "memory_store", map[string]any{"content": "Project uses PostgreSQL 15", "memory_type": "fact", "namespace": "project:myapp"}, &s)
			other = s.ID
			for i := range 6 {
				var fb struct {
					NewConfidence float64 `json:"new_confidence"`
					Promoted      bool    `json:"promoted"`
					NewType       string  `json:"new_type"`
				}
				memOK(t, c, "memory_validate", map[string]any{"memory_id": golden, "was_helpful": true}, &fb)
				if want := []float64{0.4, 0.5, 0.6, 0.7, 0.8, 0.9}[i]; fb.NewConfidence != want || fb.Promoted != (i == 5) {
					t.Fatalf("validation %d: %+v, want %v", i, fb, want)
				}
				if i == 5 && fb.NewType != "golden_rule" {
					t.Fatalf("promotion: %+v", fb)
				}
			}
			var rel struct {
				Created bool `json:"created"`
			}
			memOK(t, c, "memory_relate", map[string]any{"source_id": golden, "target_id": other, "relation_type": "relates_to", "weight": 0.6}, &rel)
			if !rel.Created {
				t.Fatal("relation not created")
			}
			var recall struct {
				Memories []struct {
					ID string `json:"id"`
				} `json:"memories"`
			}
			memOK(t, c, "memory_recall", map[string]any{"query": "postgres database version", "n_results": 1}, &recall)
			if len(recall.Memories) != 1 || recall.Memories[0].ID != other {
				t.Fatalf("recall: %+v", recall)
			}
			var cx struct {
				Context string `json:"context"`
			}
			memOK(t, c, "memory_context", map[string]any{}, &cx)
			if !strings.HasPrefix(cx.Context, "## Relevant Memories\n\n### Golden Rules (High Confidence)\n- Always use type hints in Python code [confidence: 0.9]\n") {
				t.Fatalf("context:\n%s", cx.Context)
			}
			var forgot struct {
				ProtectedIDs []string `json:"protected_ids"`
			}
			memOK(t, c, "memory_forget", map[string]any{"input_value": golden}, &forgot)
			if !slices.Equal(forgot.ProtectedIDs, []string{golden}) {
				t.Fatalf("forget a golden rule: %+v", forgot)
			}
			if msg := memFail(t, c, "memory_validate", map[string]any{"memory_id": "mem_0000000000000000", "was_helpful": true}); msg != "Memory not found: mem_0000000000000000" {
				t.Errorf("error %q", msg)
			}
			if msg := memFail(t, c, "memory_store", map[string]any{"content": "x", "memory_type": "opinion"}); msg != "Invalid memory type: opinion" {
				t.Errorf("error %q", msg)
			}
			if msg := memFail(t, c, "memory_recall", map[string]any{"query": " "}); msg != "Query cannot be empty" {
				t.Errorf("error %q", msg)
			}
		})
		if t.Failed() {
			return
		}
		t.Run("everything survives a restart", func(t *testing.T) {
			c := startMemory(t, st, vault)
			var list memListed
			memOK(t, c, "memory_list", map[string]any{"order_by": "confidence"}, &list)
			if list.Total != 2 || list.Memories[0].ID != golden || list.Memories[0].MemoryType != "golden_rule" || list.Memories[0].Confidence != 0.9 {
				t.Fatalf("after restart: %+v", list)
			}
			var g struct {
				Edges []struct {
					Source string  `json:"source"`
					Target string  `json:"target"`
					Weight float64 `json:"weight"`
				} `json:"edges"`
			}
			memOK(t, c, "memory_inspect_graph", map[string]any{"memory_id": golden}, &g)
			if len(g.Edges) != 1 || g.Edges[0].Source != golden || g.Edges[0].Target != other || g.Edges[0].Weight != 0.6 {
				t.Fatalf("relation after restart: %+v", g)
			}
			var h memHistory
			memOK(t, c, "validation_history", map[string]any{"memory_id": golden}, &h)
			if len(h.Events) != 6 {
				t.Fatalf("history after restart: %d events", len(h.Events))
			}
		})
		if t.Failed() {
			return
		}
		t.Run("acknowledged writes survive kill -9", func(t *testing.T) {
			testMemoryKill(t, st, vault, golden, other)
		})
	})
}

// rpcServer is a vaultgraph process spoken to in raw JSON-RPC lines, so
// that requests can be in flight when it is killed.
type rpcServer struct {
	*proc
	in *io.PipeWriter
}

func (s *rpcServer) send(t *testing.T, msg any) {
	t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.in.Write(append(b, '\n')); err != nil {
		t.Fatalf("write to the server: %v", err)
	}
}

// acknowledged returns the answers on stdout so far, by request id: the
// envelope text of each successful tool call (isError false).
func (s *rpcServer) acknowledged() map[int]string {
	out := map[int]string{}
	for line := range strings.Lines(s.stdout.String()) {
		var msg struct {
			ID     *int `json:"id"`
			Result *struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
				IsError bool `json:"isError"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &msg) != nil || msg.ID == nil || msg.Result == nil || msg.Result.IsError || len(msg.Result.Content) == 0 {
			continue
		}
		out[*msg.ID] = msg.Result.Content[0].Text
	}
	return out
}

func testMemoryKill(t *testing.T, st store, vault, golden, other string) {
	pr, pw := io.Pipe()
	p := startProc(t, memoryEnv(t, st), pr, memoryArgs(st, vault)...)
	s := &rpcServer{proc: p, in: pw}
	t.Cleanup(func() { _ = pw.Close() })
	s.send(t, map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": mcp.ProtocolVersion20251125, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "vaultgraph-e2e-kill", "version": "1"}}})
	if !eventually(readyTimeout, func() bool { return strings.Contains(p.stdout.String(), `"id":0`) }) {
		t.Fatalf("no answer to initialize; stderr:\n%s", p.stderr.String())
	}
	s.send(t, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})

	// A stream of writes of three kinds: new memories, TRY events on one
	// memory, validations of another. Sent in one go, so that many are in
	// flight when the process dies.
	const n = 300
	kinds := map[int]string{}
	for i := 1; i <= n; i++ {
		kinds[i] = []string{"store", "apply", "validate"}[i%3]
	}
	go func() {
		var buf bytes.Buffer
		for i := 1; i <= n; i++ {
			var name string
			var args map[string]any
			switch i % 3 {
			case 0:
				name, args = "memory_store", map[string]any{"content": fmt.Sprintf("streamed memory %d", i), "memory_type": "fact"}
			case 1:
				name, args = "memory_apply", map[string]any{"memory_id": golden, "context": fmt.Sprintf("apply %d", i)}
			default:
				name, args = "memory_validate", map[string]any{"memory_id": other, "was_helpful": i%4 == 0}
			}
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
			buf.Write(append(b, '\n'))
		}
		_, _ = pw.Write(buf.Bytes())
	}()
	// Kill once a good part is acknowledged, with the rest in flight.
	if !eventually(readyTimeout, func() bool { return len(s.acknowledged()) >= n/5 }) {
		t.Fatalf("only %d of %d writes acknowledged; stderr:\n%s", len(s.acknowledged()), n, p.stderr.String())
	}
	p.signal(t, syscall.SIGKILL)
	_ = pw.Close() // exec's Wait waits for the goroutine copying stdin
	if _, ok := p.exitCode(shutdownTimeout); !ok {
		t.Fatal("the server survived SIGKILL")
	}
	acked := s.acknowledged()
	t.Logf("%d of %d writes acknowledged before SIGKILL", len(acked), n)
	if len(acked) == n {
		t.Log("every write finished before the kill; the test still checks them all")
	}

	c := startMemory(t, st, vault)
	var list memListed
	contents := map[string]bool{}
	for offset := 0; ; offset += 100 {
		memOK(t, c, "memory_list", map[string]any{"limit": 100, "offset": offset, "namespace": "global"}, &list)
		for _, m := range list.Memories {
			contents[m.Content] = true
		}
		if offset+100 >= list.Total {
			break
		}
	}
	var h memHistory
	memOK(t, c, "validation_history", map[string]any{"limit": 500}, &h)
	events := map[string]bool{}
	for _, ev := range h.Events {
		events[ev.EventID] = true
	}
	missing := 0
	for id, text := range acked {
		switch kinds[id] {
		case "store":
			if want := fmt.Sprintf("streamed memory %d", id); !contents[want] {
				t.Errorf("acknowledged memory_store %q is gone", want)
				missing++
			}
		default:
			var env struct {
				Data struct {
					EventID string `json:"event_id"`
				} `json:"data"`
			}
			if err := json.Unmarshal([]byte(text), &env); err != nil || env.Data.EventID == "" {
				t.Fatalf("answer %d: %.200s", id, text)
			}
			if !events[env.Data.EventID] {
				t.Errorf("acknowledged %s event %s (request %d) is gone", kinds[id], env.Data.EventID, id)
				missing++
			}
		}
	}
	if missing > 0 {
		t.Fatalf("%d acknowledged writes lost", missing)
	}
	// And the store is usable: a write after the crash works.
	var s2 memStored
	memOK(t, c, "memory_store", map[string]any{"content": "written after the crash"}, &s2)
	if s2.Duplicate {
		t.Fatal("a new memory after the crash is a duplicate")
	}
}
