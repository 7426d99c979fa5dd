package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vaultgraph/vaultgraph/benchgen"
)

// TestLargeSyncSameOnBothStores syncs a generated vault of 3,000 notes,
// more than one write batch, as one staged write (core.StagedWriter):
// Neo4j writes every note, then every link; the embedded store writes it
// as one batch while analysing the notes' text ahead of the write. The graph
// tools must then answer the same on both stores, and a second sync on
// Neo4j has nothing to write.
func TestLargeSyncSameOnBothStores(t *testing.T) {
	t.Parallel()
	vault := filepath.Join(t.TempDir(), "vault")
	m, err := benchgen.Generate(vault, benchgen.Config{Notes: 3000, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	hub := strings.ToLower(m.Hubs(1)[0].Path)
	calls := [][2]string{
		{"get_hubs", `{"metric":"in_degree","limit":25}`},
		{"get_hubs", `{"metric":"out_degree","limit":25}`},
		{"get_hubs", `{"metric":"pagerank","limit":25}`},
		{"get_neighbors", `{"id":"` + hub + `","direction":"in","limit":50}`},
		{"search_by_tags", `{"tags":["` + m.Tags[0] + `"],"limit":50}`},
		{"get_node", `{"id":"` + hub + `","depth":1}`},
	}
	var mu sync.Mutex
	answers := map[string][]string{}
	t.Run("stores", func(t *testing.T) { // returns once both stores are done
		forEachStoreSharing(t, func(t *testing.T, st store) {
			env := processEnv(t, st)
			code, _, errOut := runProc(t, env, cliArgs(st, vault, "sync")...)
			if code != 0 {
				t.Fatalf("sync: exit %d; stderr:\n%s", code, errOut)
			}
			for _, c := range calls {
				code, out, errOut := runProc(t, env, cliArgs(st, vault, "call", c[0], c[1])...)
				if code != 0 {
					t.Fatalf("call %s %s: exit %d, stdout %.300q; stderr:\n%s", c[0], c[1], code, out, errOut)
				}
				mu.Lock()
				answers[st.name] = append(answers[st.name], withoutWarnings(t, out))
				mu.Unlock()
				if st.neo4j != nil {
					if again, ok := findLog(errOut, "vault: sync done"); ok {
						if w, _ := again["written"].(float64); w != 0 {
							t.Errorf("a sync after the staged sync wrote %v notes, want 0: %v", w, again)
						}
					}
				}
			}
		})
	})
	emb, neo := answers["embedded"], answers["neo4j"]
	if len(neo) == 0 {
		t.Skip("no Neo4j answers to compare")
	}
	for i, c := range calls {
		if emb[i] != neo[i] {
			t.Errorf("%s %s: the stores differ\nembedded: %.600s\nneo4j:    %.600s", c[0], c[1], emb[i], neo[i])
		}
	}
}

// withoutWarnings returns the first JSON value "vaultgraph call" printed
// (the answer; warnings may follow) without _warnings, which report the
// vault (broken links), not the store.
func withoutWarnings(t *testing.T, out string) string {
	t.Helper()
	var v any
	if err := json.NewDecoder(strings.NewReader(out)).Decode(&v); err != nil {
		t.Fatalf("answer is not JSON: %v: %.300q", err, out)
	}
	if obj, ok := v.(map[string]any); ok {
		delete(obj, "_warnings")
	}
	b, _ := json.Marshal(v)
	return string(b)
}
