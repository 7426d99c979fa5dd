package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSearchCoversDocumentsAndMemories (issue 25): spec 004's search
// "across indexed documents and memories", through the real binary on both
// stores: memories come ranked with chunks in one list (doc_type
// "memory"), the doc_type, namespace and source_file filters and the token
// budget apply to both, and get_index_stats counts memories, golden rules
// and their namespaces.
func TestSearchCoversDocumentsAndMemories(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st store) {
		vault := copyVault(t, nil)
		docs := t.TempDir()
		if err := os.WriteFile(filepath.Join(docs, "db.txt"), []byte("The billing service keeps invoices in a PostgreSQL database, backed up nightly."), 0o644); err != nil {
			t.Fatal(err)
		}
		c := startDocuments(t, st, vault, docs, "memory")
		docOK(t, c, "index_file", map[string]any{"file_path": filepath.Join(docs, "db.txt"), "namespace": "docs"}, nil)
		var stored struct {
			ID string `json:"id"`
		}
		docOK(t, c, "memory_store", map[string]any{"content": "The project database is PostgreSQL 16", "memory_type": "fact", "namespace": "project:billing"}, &stored)
		pg := stored.ID
		docOK(t, c, "memory_store", map[string]any{"content": "User prefers dark mode in the editor", "memory_type": "preference"}, &stored)
		dark := stored.ID
		for range 6 {
			docOK(t, c, "memory_validate", map[string]any{"memory_id": dark, "was_helpful": true}, nil)
		}

		var found searchData
		docOK(t, c, "search", map[string]any{"query": "PostgreSQL database", "n_results": 10}, &found)
		types := map[string]string{}
		for i, r := range found.Results {
			types[r.ID] = r.DocType
			if i > 0 && r.Score > found.Results[i-1].Score {
				t.Errorf("results are not in one ranking by score: %+v", found.Results)
			}
		}
		if types[pg] != "memory" || !slices.Contains(mapValues(types), "document") {
			t.Fatalf("search holds documents and memories: %+v", found.Results)
		}
		for _, r := range found.Results {
			if r.ID == pg && (r.Namespace != "project:billing" || r.Metadata["memory_type"] != "fact" || r.Content != "The project database is PostgreSQL 16") {
				t.Errorf("memory hit: %+v", r)
			}
		}

		docOK(t, c, "search_with_filters", map[string]any{"query": "PostgreSQL database", "filters": map[string]any{"doc_type": "memory"}}, &found)
		if len(found.Results) == 0 || found.Results[0].ID != pg {
			t.Fatalf("doc_type memory: %+v", found.Results)
		}
		for _, r := range found.Results {
			if r.DocType != "memory" {
				t.Errorf("doc_type memory answered %+v", r)
			}
		}
		docOK(t, c, "search_with_filters", map[string]any{"query": "PostgreSQL database", "filters": map[string]any{"namespace": "project:billing"}}, &found)
		if len(found.Results) != 1 || found.Results[0].ID != pg {
			t.Fatalf("a memory namespace as filter: %+v", found.Results)
		}
		docOK(t, c, "search_with_filters", map[string]any{"query": "PostgreSQL database", "filters": map[string]any{"doc_type": "document"}}, &found)
		for _, r := range found.Results {
			if r.DocType != "document" {
				t.Errorf("doc_type document answered %+v", r)
			}
		}
		docOK(t, c, "search_with_filters", map[string]any{"query": "PostgreSQL database", "filters": map[string]any{"source_file": filepath.Join(docs, "db.txt")}}, &found)
		if len(found.Results) != 1 || found.Results[0].DocType != "document" {
			t.Fatalf("source_file selects chunks only: %+v", found.Results)
		}

		var budget struct {
			Results []struct {
				ID      string `json:"id"`
				DocType string `json:"doc_type"`
			} `json:"results"`
			TokensUsed int `json:"tokens_used"`
		}
		docOK(t, c, "search_with_budget", map[string]any{"query": "PostgreSQL database", "max_tokens": 1000}, &budget)
		seen := map[string]bool{}
		for _, r := range budget.Results {
			seen[r.DocType] = true
		}
		if !seen["memory"] || !seen["document"] {
			t.Fatalf("the budgeted search holds both: %+v", budget)
		}
		docOK(t, c, "search_with_budget", map[string]any{"query": "PostgreSQL database", "max_tokens": 10}, &budget)
		if budget.TokensUsed > 10 || len(budget.Results) != 1 || budget.Results[0].ID != pg {
			t.Fatalf("a budget of 10 tokens holds the memory (37 characters, 10 tokens), the best result: %+v", budget)
		}

		var stats statsData
		docOK(t, c, "get_index_stats", map[string]any{}, &stats)
		if stats.MemoryCount != 2 || stats.GoldenRuleCount != 1 || !slices.Equal(stats.Namespaces, []string{"docs", "global", "project:billing"}) || stats.TotalDocuments != 1 {
			t.Fatalf("get_index_stats: %+v", stats)
		}
	})
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
