package edit_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/noteedit"
	"github.com/vaultgraph/vaultgraph/tools/edit"
)

func version(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// daily is a note with what a careless rewrite would lose: CRLF line
// breaks, a frontmatter comment, a code block holding a heading.
const daily = "---\r\n# kept: a comment\r\nstatus: open\r\ntags: [daily]\r\n---\r\n# 2026-05-01\r\n\r\n```\r\n## Today\r\n```\r\n\r\n## Today\r\n- [ ] call Ann\r\n\r\n## Later\r\nnothing\r\n"

func TestEditNoteOperations(t *testing.T) {
	f := newFixture(t, map[string]string{"Daily.md": daily, "other.md": "x and x\n"})
	c := f.client

	var res edit.EditNoteResponse
	ok(t, c, edit.EditNoteName, map[string]any{"id": "daily", "operation": "append", "heading": "## Today", "content": "- [ ] buy milk"}, &res)
	want := strings.Replace(daily, "- [ ] call Ann\r\n", "- [ ] call Ann\r\n- [ ] buy milk\r\n", 1)
	if got := f.read(t, "Daily.md"); got != want {
		t.Fatalf("after append:\n%q\nwant\n%q", got, want)
	}
	if !res.Changed || res.ID != "daily.md" || res.Path != "Daily.md" || res.Version != version(want) {
		t.Errorf("answer %+v", res)
	}
	if !strings.Contains(res.Diff, "+- [ ] buy milk") || !strings.HasPrefix(res.Diff, "--- a/Daily.md\n+++ b/Daily.md\n@@ ") {
		t.Errorf("diff:\n%s", res.Diff)
	}

	// The version chains edits; a stale one is refused and writes nothing.
	ok(t, c, edit.EditNoteName, map[string]any{"id": "Daily.md", "operation": "set_frontmatter", "key": "status", "value": "done", "expected_version": res.Version}, &res)
	want = strings.Replace(want, "status: open", "status: done", 1)
	if got := f.read(t, "Daily.md"); got != want || res.Version != version(want) {
		t.Fatalf("after set_frontmatter:\n%q", got)
	}
	e := fail(t, c, edit.EditNoteName, map[string]any{"id": "Daily.md", "operation": "set_frontmatter", "key": "status", "value": "open", "expected_version": version(daily)})
	if e.Code != edit.CodeVersionConflict || e.CurrentVersion != res.Version || !strings.Contains(e.Message, "read it again") {
		t.Errorf("stale version: %+v", e)
	}
	// Setting what is there changes nothing.
	ok(t, c, edit.EditNoteName, map[string]any{"id": "Daily.md", "operation": "set_frontmatter", "key": "status", "value": "done"}, &res)
	if res.Changed || res.Diff != "" || res.Version != version(want) {
		t.Errorf("no-op edit: %+v", res)
	}
	ok(t, c, edit.EditNoteName, map[string]any{"id": "Daily.md", "operation": "set_frontmatter", "key": "rating", "value": 4}, &res)
	want = strings.Replace(want, "tags: [daily]\r\n", "tags: [daily]\r\nrating: 4\r\n", 1)
	if got := f.read(t, "Daily.md"); got != want {
		t.Fatalf("after a numeric value:\n%q", got)
	}
	ok(t, c, edit.EditNoteName, map[string]any{"id": "Daily.md", "operation": "replace_section", "heading": "2026-05-01 > Later", "content": "tomorrow\nand after"}, &res)
	want = strings.Replace(want, "## Later\r\nnothing\r\n", "## Later\r\ntomorrow\r\nand after\r\n", 1)
	if got := f.read(t, "Daily.md"); got != want {
		t.Fatalf("after replace_section:\n%q", got)
	}
	ok(t, c, edit.EditNoteName, map[string]any{"id": "Daily.md", "operation": "insert_after", "heading": "Today", "content": "## Notes\nquiet day"}, &res)
	if got := f.read(t, "Daily.md"); !strings.Contains(got, "- [ ] buy milk\r\n\r\n## Notes\r\nquiet day\r\n\r\n## Later") {
		t.Fatalf("after insert_after:\n%q", got)
	}
	ok(t, c, edit.EditNoteName, map[string]any{"id": "other.md", "operation": "replace_text", "old_text": "x", "new_text": "y", "expected_count": 2}, &res)
	if got := f.read(t, "other.md"); got != "y and y\n" {
		t.Fatalf("after replace_text: %q", got)
	}

	for name, tc := range map[string]struct {
		args      map[string]any
		code, msg string
	}{
		"missing note":         {map[string]any{"id": "nope", "operation": "append", "content": "x"}, edit.CodeNodeNotFound, "no note has this ID"},
		"text found twice":     {map[string]any{"id": "other.md", "operation": "replace_text", "old_text": "y", "new_text": "z"}, edit.CodeInvalidParams, "occurs 2 times (lines 1, 1)"},
		"text not found":       {map[string]any{"id": "other.md", "operation": "replace_text", "old_text": "Y AND", "new_text": "z"}, edit.CodeInvalidParams, "differs only in letter case or blanks is at line 1"},
		"no such heading":      {map[string]any{"id": "Daily.md", "operation": "append", "heading": "Tomorrow", "content": "x"}, edit.CodeInvalidParams, "Tomorrow"},
		"an argument too many": {map[string]any{"id": "other.md", "operation": "replace_text", "old_text": "y", "new_text": "z", "content": "x"}, edit.CodeInvalidParams, "replace_text does not take content; it takes old_text and new_text, optionally expected_count"},
		"an argument missing":  {map[string]any{"id": "other.md", "operation": "set_frontmatter", "key": "k"}, edit.CodeInvalidParams, "set_frontmatter needs value"},
		"an unknown argument":  {map[string]any{"id": "other.md", "operation": "append", "content": "x", "section": "y"}, edit.CodeInvalidParams, "section"},
		"an unknown operation": {map[string]any{"id": "other.md", "operation": "rewrite", "content": "x"}, edit.CodeInvalidParams, "operation"},
	} {
		t.Run(name, func(t *testing.T) {
			before := f.read(t, "other.md")
			e := fail(t, c, edit.EditNoteName, tc.args)
			if e.Code != tc.code || !strings.Contains(e.Message, tc.msg) {
				t.Errorf("got %+v, want %s with %q", e, tc.code, tc.msg)
			}
			if f.read(t, "other.md") != before {
				t.Error("a refused edit wrote")
			}
		})
	}
}

// A check (the knowledge base service's, in the server) vets the edited
// bytes at the note's path; a refusal writes nothing.
func TestEditNoteHonoursTheCheck(t *testing.T) {
	var seen []string
	check := func(_ context.Context, path string, content []byte) error {
		seen = append(seen, path)
		if strings.HasPrefix(path, "kb/") && !strings.Contains(string(content), "status:") {
			return core.InvalidArgument("kb/ notes need a status property; add it with set_frontmatter first")
		}
		return nil
	}
	f := newFixture(t, map[string]string{"kb/n.md": "# N\n", "free.md": "# F\n"}, noteedit.WithCheck(check))
	e := fail(t, f.client, edit.EditNoteName, map[string]any{"id": "kb/n.md", "operation": "append", "content": "more"})
	if e.Code != edit.CodeInvalidParams || !strings.Contains(e.Message, "need a status property") {
		t.Errorf("refusal: %+v", e)
	}
	if got := f.read(t, "kb/n.md"); got != "# N\n" {
		t.Errorf("a refused edit wrote: %q", got)
	}
	ok(t, f.client, edit.EditNoteName, map[string]any{"id": "kb/n.md", "operation": "set_frontmatter", "key": "status", "value": "draft"}, nil)
	ok(t, f.client, edit.EditNoteName, map[string]any{"id": "free.md", "operation": "append", "content": "more"}, nil)
	if strings.Join(seen, " ") != "kb/n.md kb/n.md free.md" {
		t.Errorf("checked %v", seen)
	}
}

// edit_note inside a knowledge base's folder passes its folder
// constraint, as the kb tools' and the graph tools' writes do: a refused
// edit answers INVALID_PARAMS with the kb's issues and writes nothing.
func TestEditNoteHonoursAKnowledgeBasesFolderConstraint(t *testing.T) {
	const note = "---\nstatus: draft\n---\n## Summary\nok\n"
	f := newKBFixture(t, map[string]string{"research/2025-01-01-ok.md": note, "loose.md": "---\nstatus: x\n---\n"})
	ok(t, f.client, "add_knowledge_base", map[string]any{"name": "r", "description": "d", "subfolder": "research", "organization_rules": "o"}, nil)
	ok(t, f.client, "add_knowledge_base_folder_constraint", map[string]any{"kb_name": "r", "subfolder": "research", "rules": map[string]any{
		"frontmatter": map[string]any{"required_fields": []any{map[string]any{"name": "status", "type": "string", "allowed_values": []any{"draft", "final"}}}},
		"content":     map[string]any{"required_sections": []any{"Summary"}},
	}}, nil)

	res, text := call(t, f.client, edit.EditNoteName, map[string]any{"id": "research/2025-01-01-ok.md", "operation": "set_frontmatter", "key": "status", "value": "lost"})
	if !res.IsError || !strings.Contains(text, `"code":"INVALID_PARAMS"`) || !strings.Contains(text, `knowledge base \"r\"`) || !strings.Contains(text, `"issues":[`) {
		t.Fatalf("a value the constraint refuses: %s", text)
	}
	e := fail(t, f.client, edit.EditNoteName, map[string]any{"id": "research/2025-01-01-ok.md", "operation": "replace_text", "old_text": "## Summary", "new_text": "## Abstract"})
	if e.Code != edit.CodeInvalidParams || e.Issues == nil {
		t.Errorf("a section the constraint requires: %+v", e)
	}
	if got := f.read(t, "research/2025-01-01-ok.md"); got != note {
		t.Fatalf("a refused edit wrote: %q", got)
	}
	ok(t, f.client, edit.EditNoteName, map[string]any{"id": "research/2025-01-01-ok.md", "operation": "set_frontmatter", "key": "status", "value": "final"}, nil)
	ok(t, f.client, edit.EditNoteName, map[string]any{"id": "loose.md", "operation": "set_frontmatter", "key": "status", "value": "lost"}, nil)
}
