package catalog

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/internal/toolset"
	"github.com/vaultgraph/vaultgraph/tools"
)

// The byte budget of the tools/list result, compact JSON as a client
// receives it, with embeddings on: a model reads it on every turn
// (~4 bytes a token). The default list must stay under 20 KB (issue 47);
// a change that grows it must pay for itself (shorter words elsewhere).
// Raising budgetAll must say why in docs/DECISIONS.md ("A lighter tool
// list", "Portable tool schemas and the tools/list budget").
const (
	budgetDefault = 20 << 10 // graph, kb, edit: 20,315 bytes, under 20,480
	budgetAll     = 55_296   // every toolset: 53,732 bytes
)

// listBytes is the size of the tools/list result for the toolsets ids
// (empty: the defaults).
func listBytes(t *testing.T, ids []string) int {
	t.Helper()
	sel, err := tools.Select(Tools(Options{Embeddings: true}), tools.Selection{Toolsets: ids})
	if err != nil {
		t.Fatal(err)
	}
	var list []mcp.Tool
	for _, st := range tools.ServerTools(sel) {
		list = append(list, st.Tool)
	}
	b, err := json.Marshal(mcp.ListToolsResult{Tools: list})
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

func TestToolListByteBudget(t *testing.T) {
	def, all := listBytes(t, nil), listBytes(t, toolset.IDs())
	t.Logf("tools/list: default %d bytes, all %d bytes", def, all)
	if def >= budgetDefault {
		t.Errorf("the default tools/list is %d bytes, not under its budget of %d: shorten a description rather than raise it", def, budgetDefault)
	}
	if all > budgetAll {
		t.Errorf("the tools/list of every toolset is %d bytes, over its budget of %d", all, budgetAll)
	}
}
