package e2e

import (
	"slices"
	"testing"

	"github.com/mark3labs/mcp-go/client"
)

// builtinEmbedding turns semantic search on in the processes a test starts:
// baseEnv switches it off for the rest of the suite, and the last value of
// a variable wins in a process's environment.
const builtinEmbedding = "VAULTGRAPH_EMBEDDING_PROVIDER=builtin"

// searchHit is spec 000's SearchResultResponse.
type searchHit struct {
	node
	Score *float64 `json:"score"`
}

// search calls the search tool and returns its hits.
func search(t *testing.T, c *client.Client, args map[string]any) []searchHit {
	t.Helper()
	var hits []searchHit
	callTool(t, c, "search", args).decode(t, &hits)
	for _, h := range hits {
		if h.Score == nil || *h.Score < 0 || *h.Score > 1 {
			t.Errorf("hit %s: score %v, want a number in [0, 1]", h.ID, h.Score)
		}
	}
	return hits
}

func hitIDs(hits []searchHit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

// TestSearch calls the search tool of spec 000 through the real binary on
// the example vault, with the built-in embedding model, for each store and
// transport: paraphrased queries find their note, limits hold, bad
// arguments are INVALID_PARAMS, and a note written through a tool becomes
// searchable.
func TestSearch(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st store) {
		st.env = append(st.env, builtinEmbedding)
		for i, tr := range transports {
			t.Run(tr, func(t *testing.T) {
				if st.neo4j != nil && i > 0 {
					st.neo4j.Clean(t) // the previous transport's server wrote project "default"
				}
				vault := copyVault(t, nil)
				c := connect(t, st, vault, tr)
				t.Run("the tool is listed", func(t *testing.T) {
					if !slices.Contains(toolNames(listTools(t, c)), "search") {
						t.Fatal("search is not listed with the built-in provider")
					}
				})
				t.Run("paraphrases find their note", func(t *testing.T) { testParaphrases(t, c) })
				t.Run("limit", func(t *testing.T) { testSearchLimit(t, c) })
				t.Run("bad arguments", func(t *testing.T) { testSearchErrors(t, c) })
				t.Run("a created note becomes searchable", func(t *testing.T) { testSearchCreated(t, c) })
			})
		}
	})
}

func testParaphrases(t *testing.T, c *client.Client) {
	for query, want := range map[string]string{
		// None of these shares its key words with the note it finds.
		"representing sentences as numeric vectors to compare their meaning": "concepts/embeddings.md",
		"how much time each stage of a request is allowed":                   "concepts/latency budget.md",
		"splitting long documents into smaller pieces":                       "concepts/chunking.md",
		"merging two ranked result lists":                                    "concepts/reciprocal rank fusion.md",
	} {
		hits := search(t, c, map[string]any{"query": query, "limit": 3})
		if len(hits) == 0 || hits[0].ID != want {
			t.Errorf("search %q = %v, want %s first", query, hitIDs(hits), want)
			continue
		}
		h := hits[0]
		if h.Title == "" || h.Content == "" || h.Tags == nil || h.Links == nil {
			t.Errorf("search %q: first hit lacks NodeResponse fields: %+v", query, h.node)
		}
		for j := 1; j < len(hits); j++ {
			if *hits[j].Score > *hits[j-1].Score {
				t.Errorf("search %q: hits not best first: %v", query, hitIDs(hits))
			}
		}
	}
	// An exact rare word is not lost to meaning.
	hits := search(t, c, map[string]any{"query": "BM25"})
	if len(hits) == 0 || hits[0].ID != "concepts/bm25.md" {
		t.Errorf("search BM25 = %v, want concepts/bm25.md first", hitIDs(hits))
	}
}

func testSearchLimit(t *testing.T, c *client.Client) {
	if hits := search(t, c, map[string]any{"query": "search ranking documents", "limit": 1}); len(hits) != 1 {
		t.Errorf("limit 1: %d hits", len(hits))
	}
	// The background transformer pass may give a note its vector between
	// the two searches (its score moves): compare two searches made while
	// nothing changed in between.
	var hits, all []searchHit
	same := eventually(watchTimeout, func() bool {
		hits = search(t, c, map[string]any{"query": "search ranking documents"})
		all = search(t, c, map[string]any{"query": "search ranking documents", "limit": 50})
		return len(all) >= len(hits) && slices.Equal(hitIDs(all[:len(hits)]), hitIDs(hits))
	})
	if len(hits) < 2 || len(hits) > 10 {
		t.Errorf("default limit: %d hits, want 2..10 (default 10, 13 notes)", len(hits))
	}
	if len(all) < len(hits) || len(all) > 13 {
		t.Errorf("limit 50: %d hits, want %d..13", len(all), len(hits))
	}
	if !same {
		t.Errorf("a larger limit changes the ranking: %v vs %v", hitIDs(all), hitIDs(hits))
	}
}

func testSearchErrors(t *testing.T, c *client.Client) {
	for _, args := range []map[string]any{
		{"query": ""},
		{"query": "   "},
		{},
		{"query": "x", "limit": 0},
		{"query": "x", "limit": 51},
		{"query": "x", "limit": 2.5},
		{"query": 7},
	} {
		wantCode(t, c, invalidParams, "search", args)
	}
	// Query syntax of the stores' engines is plain text.
	for _, q := range []string{`title:"embeddings" AND (`, `*`, `\`, `embed~ OR NOT`} {
		r := callTool(t, c, "search", map[string]any{"query": q})
		if r.isError {
			t.Errorf("search %q: %.300s", q, r.text)
		}
	}
}

func testSearchCreated(t *testing.T, c *client.Client) {
	r := callTool(t, c, "create_node", map[string]any{
		"title":   "Sourdough Starter",
		"content": "Feed the wild yeast culture with flour and water every day, and keep it in a warm kitchen.",
	})
	if r.isError {
		t.Fatalf("create_node: %.300s", r.text)
	}
	const want = "sourdough starter.md"
	found := eventually(watchTimeout, func() bool {
		hits := search(t, c, map[string]any{"query": "baking bread with a natural leaven", "limit": 3})
		return len(hits) > 0 && hits[0].ID == want
	})
	if !found {
		hits := search(t, c, map[string]any{"query": "baking bread with a natural leaven", "limit": 3})
		t.Errorf("the created note is not found by meaning: %v", hitIDs(hits))
	}
}
