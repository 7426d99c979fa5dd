package kb_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/vaultgraph/vaultgraph/tools"
)

// Issue 26: every tool of the graph and kb toolsets that publishes an
// outputSchema answers structuredContent that validates against it, as
// the official SDK's client checks, on every answer shape the calls below
// reach (warnings, a rename, a failing validation, a miss). Its errors
// carry no structuredContent, since that client validates theirs too. The
// schemas are taken from tools/list, as a client sees them.
func TestStructuredContentValidatesAgainstTheOutputSchema(t *testing.T) {
	f := newFixture(t, map[string]string{
		"research/ai/concepts/backprop.md": "# Backprop\n",
		"notes/hub.md":                     "---\ntags: [core]\n---\nSee [[leaf]].",
		"notes/leaf.md":                    "A leaf.",
	})
	c := f.client
	listed, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Schema{}
	for _, tool := range listed.Tools {
		raw := tools.OutputSchemaJSON(tool)
		if raw == nil {
			continue
		}
		s, err := tools.CompileSchema(tool.Name, raw)
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		schemas[tool.Name] = s
	}
	for _, name := range []string{"create_node", "update_node", "delete_node", "list_knowledge_bases", "read_note"} {
		if schemas[name] == nil {
			t.Fatalf("%s publishes no outputSchema", name)
		}
	}

	called := map[string]bool{}
	check := func(name, args string) string {
		t.Helper()
		res, text := call(t, c, name, args)
		if res.IsError {
			t.Fatalf("%s %s failed: %s", name, args, text)
		}
		called[name] = true
		schema := schemas[name]
		if schema == nil {
			return text
		}
		if res.StructuredContent == nil {
			t.Fatalf("%s: an outputSchema but no structuredContent", name)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		if !jsonEqual(t, raw, []byte(text)) {
			t.Fatalf("%s: structuredContent %s differs from the text %s", name, raw, text)
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(v); err != nil {
			t.Fatalf("%s answered %s, which its outputSchema refuses: %v", name, raw, err)
		}
		return text
	}

	check("list_knowledge_bases", `{}`)
	check("add_knowledge_base", specAddKB)
	check("list_knowledge_bases", `{}`)
	check("update_knowledge_base", `{"name":"ai-research","description":"Papers"}`)
	check("add_knowledge_base_folder_constraint", specConstraint)
	check("create_note", createArgs("papers/2025-12-10-transformers.md", paper))
	check("create_note", createArgs("drafts/x.md", "# X\n## Summary\nsee [[nowhere]]"))
	check("read_note", `{"knowledge_base_name":"ai-research","note_path":"papers/2025-12-10-transformers.md","offset":4,"limit":5}`)
	check("update_note", createArgs("drafts/x.md", "# X v2\n"))
	check("append_note", createArgs("drafts/x.md", "more"))
	check("move_note", `{"knowledge_base_name":"ai-research","origin_note_path":"concepts/backprop.md","new_note_path":"concepts/basics/backprop.md"}`)
	check("add_knowledge_base_folder_constraint", `{"kb_name":"ai-research","subfolder":"research/ai/concepts","rules":{"content":{"required_sections":["Summary"],"min_length":1}}}`)
	check("validate_note", `{"knowledge_base_name":"ai-research","note_path":"concepts/basics/backprop.md"}`) // fails its constraint
	check("list_notes", `{"knowledge_base_name":"ai-research"}`)
	check("delete_note", `{"knowledge_base_name":"ai-research","note_path":"drafts/x.md"}`)
	check("update_knowledge_base", `{"name":"ai-research","subfolder":"research/ml"}`) // a subfolder change carries notes

	if text := check("create_node", `{"title":"Warned","content":"see [[missing-note]]","tags":["a"]}`); !strings.Contains(text, `"_warnings"`) {
		t.Fatalf("the write with a broken link carries no _warnings: %s", text)
	}
	check("update_node", `{"id":"notes/leaf.md","content":"A leaf, edited."}`)
	if text := check("update_node", `{"id":"notes/leaf.md","title":"Leaf renamed"}`); !strings.Contains(text, `"renamed"`) {
		t.Fatalf("a rename is not reported: %s", text)
	}
	check("delete_node", `{"id":"warned.md"}`)
	check("delete_node", `{"id":"warned.md"}`) // deleted: false

	for name := range schemas {
		if !called[name] {
			t.Errorf("%s publishes an outputSchema this test never checks: add a call", name)
		}
	}

	t.Run("errors of a tool with an outputSchema carry no structuredContent", func(t *testing.T) {
		for name, args := range map[string]string{
			"create_node": `{"title":"Leaf renamed","content":"again","directory":"notes"}`,
			"read_note":   `{"knowledge_base_name":"nope","note_path":"a.md"}`,
		} {
			res, text := call(t, c, name, args)
			if !res.IsError || res.StructuredContent != nil {
				t.Errorf("%s: isError %v, structuredContent %v (%s)", name, res.IsError, res.StructuredContent, text)
			}
		}
	})
}
