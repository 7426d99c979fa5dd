package kb_test

import (
	"encoding/json"
	"strings"
	"testing"

	kbase "github.com/vaultgraph/vaultgraph/kb"
	"github.com/vaultgraph/vaultgraph/tools/graph"
)

// graphFail calls a graph tool that must fail and returns its error body.
func graphFail(t *testing.T, f *fixture, name, args string) graph.ErrorBody {
	t.Helper()
	res, text := call(t, f.client, name, args)
	if !res.IsError {
		t.Fatalf("%s succeeded, want an error: %s", name, text)
	}
	var er struct {
		Error struct {
			graph.ErrorBody
			Issues []kbase.Issue `json:"issues"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(text), &er); err != nil {
		t.Fatalf("%s: %v in %s", name, err, text)
	}
	body := er.Error.ErrorBody
	body.Issues = er.Error.Issues
	return body
}

// The graph toolset's writes inside a knowledge base's folder pass the
// same validation as create_note and update_note, so a knowledge base's
// guarantees cannot be bypassed (issue 22); outside every knowledge base
// they are unchecked.
func TestGraphWritesHonourFolderConstraints(t *testing.T) {
	f := newFixture(t, map[string]string{
		"research/2025-01-01-ok.md": "---\nstatus: draft\n---\n## Summary\nok",
		"loose/free.md":             "anything",
	})
	ok(t, f.client, "add_knowledge_base", `{"name":"r","description":"d","subfolder":"research","organization_rules":"o"}`, nil)
	ok(t, f.client, "add_knowledge_base_folder_constraint", `{"kb_name":"r","subfolder":"research","rules":{
		"frontmatter":{"required_fields":[{"name":"status","type":"string","allowed_values":["draft","final"]}]},
		"filename":{"pattern":"^\\d{4}-\\d{2}-\\d{2}-"},
		"content":{"required_sections":["Summary"]}}}`, nil)

	e := graphFail(t, f, "create_node", `{"title":"no date","directory":"research","content":"no summary"}`)
	if e.Code != graph.CodeInvalidParams || !strings.Contains(e.Message, `knowledge base "r"`) {
		t.Fatalf("create_node: %+v", e)
	}
	issues, _ := e.Issues.([]kbase.Issue)
	var kinds []string
	for _, is := range issues {
		kinds = append(kinds, is.Field+":"+is.Error)
	}
	if got := strings.Join(kinds, ","); got != "frontmatter.status:missing_required_field,filename:pattern_mismatch,content.sections:missing_section" {
		t.Fatalf("issues = %s (%s)", got, e.Message)
	}
	if _, found := f.read(t, "research/no-date.md"); found {
		t.Fatal("a refused note was written")
	}
	// A folder of the knowledge base in another letter case is inside it.
	e = graphFail(t, f, "create_node", `{"title":"x","directory":"RESEARCH","content":"x"}`)
	if e.Code != graph.CodeInvalidParams {
		t.Fatalf("create_node in another case: %+v", e)
	}
	// A note that satisfies the constraint is written.
	ok(t, f.client, "create_node", `{"title":"2025-02-02-fine","directory":"research","content":"---\nstatus: final\n---\n## Summary\nyes","tags":["x"]}`, nil)
	if _, found := f.read(t, "research/2025-02-02-fine.md"); !found {
		t.Fatal("a valid note was not written")
	}
	// update_node: content that breaks the rules, and a title whose file
	// name breaks the filename pattern, are refused; nothing changes.
	before, _ := f.read(t, "research/2025-01-01-ok.md")
	e = graphFail(t, f, "update_node", `{"id":"research/2025-01-01-ok.md","content":"no summary now"}`)
	if e.Code != graph.CodeInvalidParams || e.Issues == nil {
		t.Fatalf("update_node content: %+v", e)
	}
	e = graphFail(t, f, "update_node", `{"id":"research/2025-01-01-ok.md","title":"Undated"}`)
	if e.Code != graph.CodeInvalidParams {
		t.Fatalf("update_node title: %+v", e)
	}
	if after, _ := f.read(t, "research/2025-01-01-ok.md"); after != before {
		t.Fatalf("a refused update changed the note: %q", after)
	}
	if _, found := f.read(t, "research/Undated.md"); found {
		t.Fatal("a refused rename happened")
	}
	ok(t, f.client, "update_node", `{"id":"research/2025-01-01-ok.md","content":"## Summary\nstill fine"}`, nil)
	// Outside every knowledge base: no check.
	ok(t, f.client, "create_node", `{"title":"anything","directory":"loose","content":"x"}`, nil)
	ok(t, f.client, "update_node", `{"id":"loose/free.md","content":"y"}`, nil)
}
