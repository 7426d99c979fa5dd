package e2e

import (
	"fmt"
	"slices"
	"testing"
)

// cypherPayloads would change a query if a string argument were spliced
// into Cypher instead of passed as a parameter.
var cypherPayloads = []string{
	`' OR 1=1 //`,
	`" OR 1=1 //`,
	`x'}) MATCH (n) DETACH DELETE n //`,
	`x"}) MATCH (n) DETACH DELETE n //`,
	"x`) DETACH DELETE n //",
	`home.md' RETURN n UNION MATCH (n) RETURN n //`,
	`$project`,
	`{id: 'home.md'}`,
	`\' ; CALL db.clearQueryCaches() //`,
	`*/ MATCH (n) SET n.pwned = true /*`,
}

// TestCypherInjection sends every payload in every string argument of the
// graph tools: each stays data (a title or content comes back verbatim, an
// id is just not found), and the graph keeps all its notes. On Neo4j this
// is the injection test; on the embedded store the same calls must answer
// the same way.
func TestCypherInjection(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st store) {
		vault := copyVault(t, nil)
		c := startStdio(t, st, vault)
		countNotes := func() int {
			var hs []hub
			callTool(t, c, "get_hubs", map[string]any{"limit": 50}).decode(t, &hs)
			return len(hs)
		}
		notes := countNotes()
		calls := 0
		for i, p := range cypherPayloads {
			for _, call := range []struct {
				tool string
				args map[string]any
			}{
				{"get_node", map[string]any{"id": p}},
				{"get_node", map[string]any{"id": p, "depth": 1}},
				{"get_neighbors", map[string]any{"id": p}},
				{"find_path", map[string]any{"source": p, "target": "home.md"}},
				{"find_path", map[string]any{"source": "home.md", "target": p}},
				{"search_by_tags", map[string]any{"tags": []string{p}}},
				{"random_node", map[string]any{"tags": []string{p}}},
				{"update_node", map[string]any{"id": p, "content": "x"}},
				{"delete_node", map[string]any{"id": p}},
			} {
				calls++
				r := callTool(t, c, call.tool, call.args)
				if !r.isError && r.text != "null" && r.text != "[]" && r.text != `{"deleted":false}` {
					t.Errorf("%s %v answered %.200s", call.tool, call.args, r.text)
				}
			}
			// Stored verbatim as a title and as content.
			title := fmt.Sprintf("Injected %d %s", i, p)
			r := callTool(t, c, "create_node", map[string]any{"title": title, "content": p, "directory": "inj"})
			calls++
			if r.isError {
				r.code(t) // a title the file system cannot take is refused in the spec's shape
				continue
			}
			var n node
			r.decode(t, &n)
			got := getNode(t, c, map[string]any{"id": n.ID})
			calls++
			if got == nil || got.Title != title || got.Content != p {
				t.Errorf("payload %q did not round-trip: %+v", p, got)
			}
			notes++
		}
		if got := countNotes(); got != notes {
			t.Errorf("%d notes after the payloads, want %d", got, notes)
		}
		if n := getNode(t, c, map[string]any{"id": "home.md"}); n == nil || !slices.Contains(n.Tags, "index") {
			t.Errorf("home.md after the payloads: %+v", n)
		}
		t.Logf("cypher injection (%s): %d payloads, %d calls, graph intact (%d notes)", st.name, len(cypherPayloads), calls, notes)
	})
}
