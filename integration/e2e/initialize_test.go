package e2e

import (
	"slices"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// Tool names of the default toolsets (graph, kb and edit), as specs 000
// and 002 and issue 30 name them. The graph toolset's search is absent: it needs an embedding
// provider, and the suite runs without one.
var (
	graphTools = []string{
		"get_node", "get_neighbors", "find_path", "get_hubs", "search_by_tags", "random_node",
		"create_node", "update_node", "delete_node",
	}
	kbTools = []string{
		"list_knowledge_bases", "add_knowledge_base", "update_knowledge_base", "add_knowledge_base_folder_constraint",
		"create_note", "update_note", "append_note", "move_note", "delete_note",
		"read_note", "list_notes", "validate_note",
	}
	editTools = []string{"edit_note", "recent_changes"}
	// writeTools are the tools that change the vault: every other tool
	// must declare itself read-only, and a read-only token sees only those.
	writeTools = []string{
		"create_node", "update_node", "delete_node",
		"add_knowledge_base", "update_knowledge_base", "add_knowledge_base_folder_constraint",
		"create_note", "update_note", "append_note", "move_note", "delete_note",
		"edit_note",
	}
)

// defaultTools is every tool of the default toolsets, sorted.
func defaultTools() []string {
	return sorted(append(append(slices.Clone(graphTools), kbTools...), editTools...))
}

func TestInitializeListsTheDefaultToolsets(t *testing.T) {
	t.Parallel()
	protocols := map[string][]client.ClientOption{
		"current protocol": nil,
		"legacy protocol":  {legacyProtocol()},
	}
	forEachStore(t, func(t *testing.T, st store) {
		vault := copyVault(t, nil)
		for _, tr := range transports {
			t.Run(tr, func(t *testing.T) {
				var h *httpServer
				if tr == "http" {
					h = startHTTP(t, st, vault, "127.0.0.1:0")
				}
				for name, copts := range protocols {
					t.Run(name, func(t *testing.T) {
						var c *client.Client
						if h != nil {
							c = httpClient(t, h.url(), rwToken, copts...)
						} else {
							args := append([]string{"serve", "--vault", vault}, st.args...)
							c, _ = stdioClient(t, processEnv(t, st), args, copts...)
						}
						res := initialize(t, c)
						if res.ServerInfo.Name != "vaultgraph" {
							t.Errorf("server name %q, want vaultgraph", res.ServerInfo.Name)
						}
						if res.ServerInfo.Version == "" {
							t.Error("the server reports no version")
						}
						if res.Capabilities.Tools == nil {
							t.Error("the server does not declare the tools capability")
						}
						tools := listTools(t, c)
						if got, want := toolNames(tools), defaultTools(); !slices.Equal(got, want) {
							t.Errorf("tools/list:\n got %v\nwant %v", got, want)
						}
						for _, tool := range tools {
							checkAnnotations(t, tool)
						}
					})
				}
			})
		}
	})
}

// checkAnnotations fails t unless tool carries a title (top level; the
// annotations do not repeat it) and openWorldHint false, and, read with
// MCP's defaults for the hints it leaves out (readOnlyHint false,
// destructiveHint true, issue 47), declares itself read-only exactly when
// it is not a write tool, and the deletes destructive.
func checkAnnotations(t *testing.T, tool mcp.Tool) {
	t.Helper()
	a := tool.Annotations
	if tool.Title == "" || a.OpenWorldHint == nil || *a.OpenWorldHint {
		t.Errorf("%s: title or openWorldHint missing: %+v", tool.Name, a)
		return
	}
	readOnly := a.ReadOnlyHint != nil && *a.ReadOnlyHint
	if writes := slices.Contains(writeTools, tool.Name); writes == readOnly {
		t.Errorf("%s: readOnlyHint %v", tool.Name, readOnly)
	}
	if (tool.Name == "delete_node" || tool.Name == "delete_note") && a.DestructiveHint != nil && !*a.DestructiveHint {
		t.Errorf("%s: destructiveHint false", tool.Name)
	}
}
