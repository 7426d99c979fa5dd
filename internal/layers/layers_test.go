package layers

import (
	"bufio"
	"bytes"
	"os/exec"
	"path"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/vaultgraph/vaultgraph"

// A rule forbids the packages it applies to from depending, directly or
// through any chain of imports, on the packages it names. Package patterns
// are module-relative; "x/..." means x and everything below it.
type rule struct {
	why     string
	applies []string
	except  []string // packages among applies the rule leaves out
	forbids []string
}

// The stores and the wiring: what only cmd puts together.
var (
	stores   = []string{"memstore/...", "neo4jstore/...", "cypher/..."}
	mcpSide  = []string{"server/...", "tools/...", "resources/...", "view/..."}
	wiring   = []string{"cmd/..."}
	services = []string{
		"vault/...", "kb/...", "entity/...", "embedding/...", "semantic/...", "docindex/...",
		"noteedit/...", "activity/...", "memory/...", "confine/...", "progresslog/...",
		"internal/vaultidentity",
	}
	driver = "github.com/neo4j/neo4j-go-driver/..."
	mcpGo  = "github.com/mark3labs/mcp-go/..."
	viper  = "github.com/spf13/viper/..."
)

var rules = []rule{
	{
		why:     "core holds the domain and knows no store, driver, MCP or viper",
		applies: []string{"core"},
		forbids: concat(stores, mcpSide, wiring, services, []string{"config/...", driver, mcpGo, viper}),
	},
	{
		why:     "the contract suite tests any store through core alone",
		applies: []string{"core/storetest"},
		forbids: concat(stores, mcpSide, wiring, []string{driver, mcpGo}),
	},
	{
		why:     "stores implement core.Store and know no MCP, no vault, no tools",
		applies: stores,
		forbids: concat(mcpSide, wiring, []string{"vault/...", "config/...", "owner/...", mcpGo, viper}),
	},
	{
		why:     "a store is chosen in cmd: nothing else names one",
		applies: concat(mcpSide, services, []string{"config/...", "owner/...", "metrics/..."}),
		forbids: concat(stores, []string{driver}),
	},
	{
		why:     "services sit under the MCP layer",
		applies: services,
		forbids: concat(mcpSide, wiring, []string{mcpGo}),
	},
	{
		why:     "tools know core services and MCP, never the server that carries them or the binary",
		applies: []string{"tools/..."},
		forbids: concat(wiring, []string{"server/...", "view/...", "resources/...", "vault/...", "config/..."}),
	},
	{
		why:     "internal/jsonrpc is the wire alone: the standard library, no MCP, nothing of ours",
		applies: []string{"internal/jsonrpc"},
		forbids: concat(stores, mcpSide, wiring, services, []string{"core/...", "config/...", "owner/...", "internal/ownerserve", "internal/toolset", mcpGo, driver, viper}),
	},
	{
		why:     "nothing imports the binary",
		applies: []string{"..."},
		except:  wiring,
		forbids: wiring,
	},
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// matches reports whether pkg (module-relative for ours, full for others)
// matches pattern.
func matches(pattern, pkg string) bool {
	if pattern == "..." {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

func matchesAny(patterns []string, pkg string) bool {
	for _, p := range patterns {
		if matches(p, pkg) {
			return true
		}
	}
	return false
}

// graph returns every package of the module with its transitive
// dependencies (non-test), ours made module-relative.
func graph(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps=false", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	rel := func(p string) string {
		if p == module {
			return "."
		}
		if r, ok := strings.CutPrefix(p, module+"/"); ok {
			return r
		}
		return p
	}
	g := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		var deps []string
		for _, d := range fields[1:] {
			deps = append(deps, rel(d))
		}
		g[rel(fields[0])] = deps
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestImportRules fails on any dependency the architecture forbids,
// naming the rule and the package that broke it.
func TestImportRules(t *testing.T) {
	g := graph(t)
	if len(g) < 20 {
		t.Fatalf("go list reported %d packages; expected the whole module", len(g))
	}
	var broken []string
	for pkg, deps := range g {
		for _, r := range rules {
			if !matchesAny(r.applies, pkg) || matchesAny(r.except, pkg) {
				continue
			}
			for _, d := range deps {
				if matchesAny(r.forbids, d) {
					broken = append(broken, pkg+" depends on "+d+": "+r.why)
				}
			}
		}
	}
	sort.Strings(broken)
	for _, b := range broken {
		t.Error(b)
	}
	if len(broken) > 0 {
		t.Log("docs/ARCHITECTURE.md lists what each package may import; move the code to the layer it belongs to, or change the rule here and the table there together")
	}
}

// TestRulesCatchAnUpwardArrow checks the checker: a made-up graph with an
// arrow from core to a store, and one from a tool to Cypher, breaks rules.
func TestRulesCatchAnUpwardArrow(t *testing.T) {
	cases := map[string]string{
		"core":             "memstore",
		"tools/edit":       "cypher",
		"memstore":         "server",
		"vault":            "github.com/mark3labs/mcp-go/mcp",
		"kb":               "cmd/vaultgraph",
		"internal/jsonrpc": "github.com/mark3labs/mcp-go/mcp",
	}
	for pkg, dep := range cases {
		hit := false
		for _, r := range rules {
			if matchesAny(r.applies, pkg) && !matchesAny(r.except, pkg) && matchesAny(r.forbids, dep) {
				hit = true
			}
		}
		if !hit {
			t.Errorf("%s -> %s is not caught by any rule", pkg, dep)
		}
	}
	if !matches("tools/...", path.Join("tools", "graph")) || matches("tools/...", "toolsx") {
		t.Error("pattern matching is wrong")
	}
}
