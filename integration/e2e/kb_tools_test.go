package e2e

import (
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
)

// Error codes of spec 002.
const (
	kbNotFound      = "knowledge_base_not_found"
	kbNoteNotFound  = "note_not_found"
	kbNoteExists    = "note_already_exists"
	kbInvalidPath   = "invalid_note_path"
	kbVersionClash  = "version_conflict"
	kbProviderError = "provider_error"
)

// TestKnowledgeBaseTools runs a representative flow of the knowledge-base
// toolset (spec 002) through the real binary on both stores and both
// transports: a knowledge base is added, a note created, read in pages,
// updated with and without the right version, listed, and the notes it
// writes reach the graph too (get_node sees them).
func TestKnowledgeBaseTools(t *testing.T) {
	t.Parallel()
	forEachTarget(t, nil, func(t *testing.T, c *client.Client, vault string) {
		var added struct {
			KnowledgeBase struct {
				Name, Subfolder string
			} `json:"knowledge_base"`
		}
		callTool(t, c, "add_knowledge_base", map[string]any{
			"name": "research", "description": "papers", "subfolder": "research", "organization_rules": "One paper per note.",
		}).decode(t, &added)
		if added.KnowledgeBase.Name != "research" || added.KnowledgeBase.Subfolder != "research" {
			t.Fatalf("add_knowledge_base: %+v", added)
		}
		wantCode(t, c, "knowledge_base_already_exists", "add_knowledge_base", map[string]any{
			"name": "research", "description": "", "subfolder": "elsewhere", "organization_rules": "",
		})

		const body = "---\ntags: [paper]\n---\n# Attention\n\nSee [[Home]].\n"
		var created struct {
			Note struct{ Path, Content, Version string }
		}
		callTool(t, c, "create_note", map[string]any{
			"knowledge_base_name": "research", "note_path": "papers/attention.md", "note_content": body,
		}).decode(t, &created)
		if created.Note.Path != "research/papers/attention.md" || created.Note.Content != body || created.Note.Version == "" {
			t.Fatalf("create_note: %+v", created)
		}
		if disk := readFile(t, vault, "research/papers/attention.md"); disk != body {
			t.Errorf("file after create_note: %q", disk)
		}
		wantCode(t, c, kbNoteExists, "create_note", map[string]any{
			"knowledge_base_name": "research", "note_path": "papers/attention.md", "note_content": "again",
		})

		var page struct {
			Note struct {
				Content    string
				Version    string
				HasMore    bool `json:"has_more"`
				NextOffset int  `json:"next_offset"`
			}
		}
		callTool(t, c, "read_note", map[string]any{
			"knowledge_base_name": "research", "note_path": "papers/attention.md", "offset": 0, "limit": 3,
		}).decode(t, &page)
		if page.Note.Content != "---" || !page.Note.HasMore || page.Note.NextOffset != 3 || page.Note.Version != created.Note.Version {
			t.Errorf("read_note page: %+v", page.Note)
		}

		// The graph sees the note the knowledge base wrote.
		if n := getNode(t, c, map[string]any{"id": "research/papers/attention.md"}); n == nil || n.Title != "attention" || len(n.Links) != 1 || n.Links[0].ID != "home.md" {
			t.Errorf("get_node of the kb note: %+v", n)
		}

		newBody := strings.Replace(body, "See [[Home]].", "Rewritten.", 1)
		update := map[string]any{
			"knowledge_base_name": "research", "note_path": "papers/attention.md", "note_content": newBody,
			"expected_version": "not-the-version",
		}
		wantCode(t, c, kbVersionClash, "update_note", update)
		if disk := readFile(t, vault, "research/papers/attention.md"); disk != body {
			t.Errorf("a refused update_note changed the file: %q", disk)
		}
		update["expected_version"] = created.Note.Version
		if r := callTool(t, c, "update_note", update); r.isError {
			t.Fatalf("update_note: %s", r.text)
		}
		if disk := readFile(t, vault, "research/papers/attention.md"); disk != newBody {
			t.Errorf("file after update_note: %q", disk)
		}

		wantText(t, c, `{"knowledge_base":{"name":"research","subfolder":"research"},"notes":[{"path":"research/papers/attention.md"}],"offset":0,"next_offset":1,"has_more":false,"remaining_notes":0,"total_notes":1}`,
			"list_notes", map[string]any{"knowledge_base_name": "research"})

		// Paths in another letter case (the graph's ID form) are the notes
		// and folders on disk; answers give the path on disk.
		var big struct{ Note struct{ Path string } }
		callTool(t, c, "create_note", map[string]any{
			"knowledge_base_name": "research", "note_path": "PAPERS/Big.md", "note_content": "# Big\n",
		}).decode(t, &big)
		var bigRead struct{ Note struct{ Path string } }
		callTool(t, c, "read_note", map[string]any{"knowledge_base_name": "research", "note_path": "papers/big.md"}).decode(t, &bigRead)
		if big.Note.Path != "research/papers/Big.md" || bigRead.Note.Path != "research/papers/Big.md" {
			t.Errorf("paths in another letter case: created %q, read %q", big.Note.Path, bigRead.Note.Path)
		}

		// The graph tools' writes inside the knowledge base pass its
		// folder constraints too.
		if r := callTool(t, c, "add_knowledge_base_folder_constraint", map[string]any{
			"kb_name": "research", "subfolder": "research/papers", "rules": map[string]any{"content": map[string]any{"required_sections": []string{"Summary"}}},
		}); r.isError {
			t.Fatalf("add_knowledge_base_folder_constraint: %s", r.text)
		}
		wantCode(t, c, "INVALID_PARAMS", "create_node", map[string]any{"title": "No summary", "directory": "research/papers", "content": "none"})
		if fileExists(vault, "research/papers/No summary.md") {
			t.Error("create_node wrote past the folder constraint")
		}
		if r := callTool(t, c, "create_node", map[string]any{"title": "Summed", "directory": "research/papers", "content": "## Summary\nyes"}); r.isError {
			t.Errorf("create_node of a note that satisfies the constraint: %s", r.text)
		}
		wantCode(t, c, kbNotFound, "list_notes", map[string]any{"knowledge_base_name": "nope"})
		wantCode(t, c, kbNoteNotFound, "read_note", map[string]any{"knowledge_base_name": "research", "note_path": "papers/missing.md"})
		wantCode(t, c, kbInvalidPath, "create_note", map[string]any{
			"knowledge_base_name": "research", "note_path": "../escape.md", "note_content": "x",
		})
		if fileExists(vault, "escape.md") {
			t.Error("an invalid note path wrote outside the knowledge base")
		}
	})
}
