package catalog

import (
	"os"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/internal/toolset"
)

const toolsDoc = "../../docs/TOOLS.md"

// TestToolsDocIsCurrent fails when docs/TOOLS.md is not what the tool
// specs generate; `make docs` (UPDATE_TOOLSDOC=true) rewrites it.
func TestToolsDocIsCurrent(t *testing.T) {
	want, err := Markdown(Tools(Options{Embeddings: true}))
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("UPDATE_TOOLSDOC") == "true" {
		if err := os.WriteFile(toolsDoc, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(toolsDoc)
	if err != nil {
		t.Fatalf("%v: run make docs", err)
	}
	if string(got) != string(want) {
		t.Fatalf("docs/TOOLS.md differs from the tool specs: run make docs (UPDATE_TOOLSDOC=true go test ./tools/catalog) and commit it")
	}
}

// TestEveryToolsetHasTools: the catalog covers every toolset internal/toolset
// declares, and nothing else.
func TestEveryToolsetHasTools(t *testing.T) {
	seen := map[string]int{}
	for _, tool := range Tools(Options{Embeddings: true}) {
		if !toolset.Known(tool.Toolset) {
			t.Errorf("%s: unknown toolset %q", tool.Tool.Name, tool.Toolset)
		}
		seen[tool.Toolset]++
	}
	for _, id := range toolset.IDs() {
		if seen[id] == 0 {
			t.Errorf("toolset %s has no tool", id)
		}
	}
	if n, m := len(Tools(Options{})), len(Tools(Options{Embeddings: true})); n >= m {
		t.Errorf("without embeddings %d tools, with %d: some tools need them", n, m)
	}
}

// TestReadmeToolsetDefaults: the README's table of toolsets says on/off as
// internal/toolset declares.
func TestReadmeToolsetDefaults(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) == 6 && strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = strings.TrimSpace(cells[4])
		}
	}
	for _, ts := range toolset.List {
		want := "off"
		if ts.Default {
			want = "on"
		}
		if rows[ts.ID] != want {
			t.Errorf("README's tools table says %q for %s, internal/toolset %s", rows[ts.ID], ts.ID, want)
		}
	}
}
