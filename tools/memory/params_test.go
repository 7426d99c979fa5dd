package memory_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// The rule for parameters across spec 004's tools (docs/DECISIONS.md):
// every tool refuses a key it does not take, naming it, and takes the
// parameters the original server of spec 004 took that the spec's text
// leaves out.
func TestParametersOfTheOriginalServerAndNoOthers(t *testing.T) {
	c := connect(t, memory.New("p", memstore.New(), embedder(t)))
	a := store(t, c, "Run the linter before every commit", "pattern", "project:params")
	b := store(t, c, "The linter is golangci-lint", "fact", "project:params")
	z := store(t, c, "Lint failures block the merge", "fact", "project:params")

	t.Run("unknown keys are refused on every memory tool", func(t *testing.T) {
		minimal := map[string]string{
			"memory_store": `"content":"x"`, "memory_recall": `"query":"x"`, "memory_validate": fmt.Sprintf(`"memory_id":%q,"was_helpful":true`, a),
			"memory_forget": fmt.Sprintf(`"memory_id":%q`, "mem_0000000000000000"), "memory_context": ``,
			"memory_apply": fmt.Sprintf(`"memory_id":%q`, a), "memory_outcome": fmt.Sprintf(`"memory_id":%q,"success":true`, a),
			"memory_relate":      fmt.Sprintf(`"source_id":%q,"target_id":%q,"relation_type":"relates_to"`, a, b),
			"memory_edge_forget": fmt.Sprintf(`"source_id":%q`, a), "memory_inspect_graph": fmt.Sprintf(`"memory_id":%q`, a),
			"memory_count": ``, "memory_list": ``, "validation_history": ``, "memory_detect_contradictions": ``,
			"memory_check_supersedes": fmt.Sprintf(`"memory_id":%q`, a), "memory_analyze_health": ``,
		}
		require.Len(t, minimal, 16)
		for tool, args := range minimal {
			sep := ","
			if args == "" {
				sep = ""
			}
			msg := fails(t, c, tool, "{"+args+sep+`"colour":"red"}`)
			assert.Contains(t, msg, `unknown argument "colour"`, tool)
		}
	})

	t.Run("memory_apply and memory_outcome take session_id and error_msg", func(t *testing.T) {
		var applied struct {
			EventID string `json:"event_id"`
		}
		ok(t, c, "memory_apply", fmt.Sprintf(`{"memory_id":%q,"context":"release","session_id":"s-42"}`, a), &applied)
		ok(t, c, "memory_outcome", fmt.Sprintf(`{"memory_id":%q,"success":false,"error_msg":"lint timed out","session_id":"s-42","event_id":%q}`, a, applied.EventID), nil)
		var h history
		ok(t, c, "validation_history", fmt.Sprintf(`{"memory_id":%q}`, a), &h)
		require.Len(t, h.Events, 2)
		for _, ev := range h.Events {
			assert.Equal(t, "s-42", ev.SessionID)
		}
		assert.Equal(t, "error: lint timed out", h.Events[1].Context)
	})

	t.Run("memory_relate takes relation for relation_type", func(t *testing.T) {
		var rel struct {
			RelationType string `json:"relation_type"`
			Created      bool   `json:"created"`
		}
		ok(t, c, "memory_relate", fmt.Sprintf(`{"source_id":%q,"target_id":%q,"relation":"caused_by"}`, z, a), &rel)
		assert.Equal(t, "caused_by", rel.RelationType)
		assert.True(t, rel.Created)
		ok(t, c, "memory_relate", fmt.Sprintf(`{"source_id":%q,"target_id":%q,"relation":"relates_to","relation_type":"relates_to"}`, a, b), &rel)
		assert.Contains(t, fails(t, c, "memory_relate", fmt.Sprintf(`{"source_id":%q,"target_id":%q,"relation":"relates_to","relation_type":"supersedes"}`, a, b)), "disagree")
		assert.Contains(t, fails(t, c, "memory_relate", fmt.Sprintf(`{"source_id":%q,"target_id":%q}`, a, b)), "Provide relation_type")
	})

	t.Run("memory_recall takes include_related and max_depth", func(t *testing.T) {
		var r struct {
			Memories []struct{ ID string } `json:"memories"`
			Expanded []struct {
				ID           string `json:"id"`
				RelatedTo    string `json:"related_to"`
				RelationType string `json:"relation_type"`
				Depth        int    `json:"depth"`
			} `json:"expanded"`
		}
		ok(t, c, "memory_recall", `{"query":"run the linter before every commit","n_results":1,"include_related":true,"max_depth":2}`, &r)
		require.Len(t, r.Memories, 1)
		require.Equal(t, a, r.Memories[0].ID)
		require.Len(t, r.Expanded, 2, "%+v", r.Expanded)
		got := map[string]int{}
		for _, e := range r.Expanded {
			got[e.ID] = e.Depth
			assert.Equal(t, a, e.RelatedTo)
		}
		assert.Equal(t, map[string]int{b: 1, z: 1}, got)
		text := ok(t, c, "memory_recall", `{"query":"linter","n_results":1}`, nil)
		assert.NotContains(t, text, "expanded", "only when asked for")
	})

	t.Run("memory_inspect_graph takes direction, edge_types and include_scores", func(t *testing.T) {
		type graph struct {
			Nodes []map[string]any `json:"nodes"`
			Edges []map[string]any `json:"edges"`
			Paths []any            `json:"paths"`
		}
		var g graph
		ok(t, c, "memory_inspect_graph", fmt.Sprintf(`{"memory_id":%q,"direction":"outgoing"}`, a), &g)
		assert.Len(t, g.Nodes, 2, "a -> b only; z -> a is incoming")
		ok(t, c, "memory_inspect_graph", fmt.Sprintf(`{"memory_id":%q,"direction":"incoming"}`, a), &g)
		assert.Len(t, g.Nodes, 2, "z -> a only")
		ok(t, c, "memory_inspect_graph", fmt.Sprintf(`{"memory_id":%q,"edge_types":["caused_by"]}`, a), &g)
		assert.Len(t, g.Nodes, 2)
		assert.Len(t, g.Edges, 1)
		g = graph{}
		ok(t, c, "memory_inspect_graph", fmt.Sprintf(`{"memory_id":%q,"include_scores":false}`, a), &g)
		assert.Len(t, g.Nodes, 3)
		assert.NotContains(t, g.Nodes[0], "score")
		assert.Nil(t, g.Paths)
		assert.Contains(t, fails(t, c, "memory_inspect_graph", fmt.Sprintf(`{"memory_id":%q,"direction":"sideways"}`, a)), "direction")
	})

	t.Run("memory_list takes descending", func(t *testing.T) {
		var l struct {
			Memories []struct{ ID string } `json:"memories"`
		}
		ok(t, c, "memory_list", `{"namespace":"project:params","order_by":"created_at","descending":false,"limit":1000}`, &l)
		asc := l.Memories
		l.Memories = nil
		ok(t, c, "memory_list", `{"namespace":"project:params","order_by":"created_at","order":"desc"}`, &l)
		require.Len(t, asc, 3)
		assert.Equal(t, asc[0].ID, l.Memories[2].ID)
		assert.Contains(t, fails(t, c, "memory_list", `{"order":"asc","descending":true}`), "disagree")
		assert.Contains(t, fails(t, c, "memory_list", `{"limit":1001}`), "limit")
	})

	t.Run("memory_edge_forget takes memory_id, relation and direction, and explains edge_id", func(t *testing.T) {
		var del struct {
			DeletedCount int `json:"deleted_count"`
		}
		assert.Contains(t, fails(t, c, "memory_edge_forget", `{"edge_id":7}`), "edge_id is not supported")
		ok(t, c, "memory_edge_forget", fmt.Sprintf(`{"memory_id":%q,"direction":"incoming","relation":"relates_to"}`, a), &del)
		assert.Equal(t, 0, del.DeletedCount, "a -> b is outgoing; z -> a is caused_by")
		ok(t, c, "memory_edge_forget", fmt.Sprintf(`{"memory_id":%q,"direction":"incoming"}`, a), &del)
		assert.Equal(t, 1, del.DeletedCount, "z -> a")
		ok(t, c, "memory_edge_forget", fmt.Sprintf(`{"memory_id":%q,"direction":"outgoing"}`, a), &del)
		assert.Equal(t, 1, del.DeletedCount, "a -> b")
		assert.Contains(t, fails(t, c, "memory_edge_forget", `{}`), "Provide source_id")
	})

	t.Run("the analyses take the original server's switches", func(t *testing.T) {
		ok(t, c, "memory_detect_contradictions", `{"create_edges":false}`, nil)
		assert.Contains(t, fails(t, c, "memory_detect_contradictions", `{"create_edges":true}`), "read-only")
		ok(t, c, "memory_check_supersedes", fmt.Sprintf(`{"memory_id":%q,"create_edge":false}`, a), nil)
		assert.Contains(t, fails(t, c, "memory_check_supersedes", fmt.Sprintf(`{"memory_id":%q,"create_edge":true}`, a)), "read-only")
		var h struct {
			Stale struct {
				Count int `json:"count"`
			} `json:"stale"`
			Recommendations []string `json:"recommendations"`
		}
		ok(t, c, "memory_analyze_health", `{"stale_days":1,"include_stale":false,"include_low_confidence":false,"include_contradictions":false}`, &h)
		assert.Equal(t, 0, h.Stale.Count)
		assert.False(t, strings.Contains(strings.Join(h.Recommendations, " "), "not accessed"))
	})
}
