package kb_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	kbase "github.com/vaultgraph/vaultgraph/kb"
	"github.com/vaultgraph/vaultgraph/tools/kb"
)

// The spec's own examples.
const (
	specAddKB = `{"name":"ai-research","description":"AI/ML research papers and concepts","subfolder":"research/ai",
		"organization_rules":"## Guidelines\n1. One concept per note\n2. Use date-prefixed filenames..."}`
	specConstraint = `{"kb_name":"ai-research","subfolder":"research/ai/papers","rules":{
		"frontmatter":{"required_fields":[
			{"name":"title","type":"string"},{"name":"authors","type":"array"},
			{"name":"published_date","type":"date","pattern":"^\\d{4}-\\d{2}-\\d{2}$"},
			{"name":"status","type":"string","allowed_values":["reading","read","summarized"]},
			{"name":"tags","type":"array"}]},
		"filename":{"pattern":"^\\d{4}-\\d{2}-\\d{2}-[a-z0-9-]+\\.md$"}}}`
	paper = "---\ntitle: Transformer Architecture\nauthors: [Vaswani]\npublished_date: 2017-06-12\nstatus: read\ntags: [nlp]\n---\n# Transformers\n\nAttention replaces recurrence. See [[backprop]].\n"
)

func createArgs(path, content string) string {
	b, _ := json.Marshal(map[string]string{"knowledge_base_name": "ai-research", "note_path": path, "note_content": content})
	return string(b)
}

func TestEveryToolOverMCP(t *testing.T) {
	f := newFixture(t, map[string]string{"research/ai/concepts/backprop.md": "# Backprop\n"})
	c := f.client

	if got := ok(t, c, "list_knowledge_bases", `{}`, nil); got != `{"knowledge_bases":[]}` {
		t.Fatalf("empty list: %s", got)
	}
	var added kb.AddKnowledgeBaseResponse
	ok(t, c, "add_knowledge_base", specAddKB, &added)
	if added.NextSteps != "Knowledge base created. Please define folder constraints using add_knowledge_base_folder_constraint to specify machine-checkable metadata rules for notes under specific subfolders." ||
		added.KnowledgeBase.Subfolder != "research/ai" || added.KnowledgeBase.OrganizationRules != "## Guidelines\n1. One concept per note\n2. Use date-prefixed filenames..." {
		t.Fatalf("add: %+v", added)
	}
	if _, err := time.Parse(time.RFC3339, added.KnowledgeBase.CreateTime); err != nil {
		t.Fatalf("create_time %q is not ISO 8601", added.KnowledgeBase.CreateTime)
	}
	list := ok(t, c, "list_knowledge_bases", ``, nil)
	want := fmt.Sprintf(`{"knowledge_bases":[{"name":"ai-research","description":"AI/ML research papers and concepts","subfolder":"research/ai","create_time":%q,"organization_rules_preview":"## Guidelines\n1. One concept per note\n2. Use date-prefixed filenames..."}]}`, added.KnowledgeBase.CreateTime)
	if !jsonEqual(t, []byte(list), []byte(want)) {
		t.Fatalf("list:\n%s\nwant\n%s", list, want)
	}
	var updated kb.UpdateKnowledgeBaseResponse
	ok(t, c, "update_knowledge_base", `{"name":"ai-research","description":"Papers"}`, &updated)
	if updated.KnowledgeBase.Description != "Papers" || updated.KnowledgeBase.CreateTime != added.KnowledgeBase.CreateTime || updated.Notes == nil || len(updated.Notes) != 0 {
		t.Fatalf("update: %+v", updated)
	}

	var constraint struct {
		FolderConstraint struct {
			KBName    string          `json:"kb_name"`
			Subfolder string          `json:"subfolder"`
			Rules     json.RawMessage `json:"rules"`
		} `json:"folder_constraint"`
	}
	ok(t, c, "add_knowledge_base_folder_constraint", specConstraint, &constraint)
	var req struct{ Rules json.RawMessage }
	_ = json.Unmarshal([]byte(specConstraint), &req)
	if constraint.FolderConstraint.KBName != "ai-research" || constraint.FolderConstraint.Subfolder != "research/ai/papers" || !jsonEqual(t, constraint.FolderConstraint.Rules, req.Rules) {
		t.Fatalf("constraint: %+v", constraint)
	}

	var created kb.CreateNoteResponse
	ok(t, c, "create_note", createArgs("papers/2025-12-10-transformers.md", paper), &created)
	if created.Note.Path != "research/ai/papers/2025-12-10-transformers.md" || created.Note.Content != paper || created.Note.Version == "" ||
		!created.MachineValidation.Passed || created.MachineValidation.Issues == nil || created.KnowledgeBase.OrganizationRules == "" ||
		created.ValidationInstructionForLLM != "Please verify the note against the knowledge base's organization_rules:\n\n1. Check that the note content follows the organization guidelines\n2. Ensure the note structure matches KB conventions\n\nIf any issues are found, call update_note with corrected content." {
		t.Fatalf("create: %+v", created)
	}
	if strings.Contains(ok(t, c, "create_note", createArgs("concepts/attention.md", "# Attention\n"), nil), `"issues":null`) {
		t.Fatal("issues must be [] when passed")
	}

	var page kb.ReadNoteResponse
	ok(t, c, "read_note", `{"knowledge_base_name":"ai-research","note_path":"papers/2025-12-10-transformers.md","offset":4,"limit":5}`, &page)
	if page.Note.Content != "title" || page.Note.Offset != 4 || page.Note.NextOffset != 9 || !page.Note.HasMore ||
		page.Note.RemainingChars != len([]rune(paper))-9 || page.Note.Version != created.Note.Version || page.Note.Path != created.Note.Path {
		t.Fatalf("read: %+v", page.Note)
	}

	newPaper := strings.Replace(paper, "status: read", "status: summarized", 1)
	var change kb.NoteChangeResponse
	args, _ := json.Marshal(map[string]string{"knowledge_base_name": "ai-research", "note_path": "papers/2025-12-10-transformers.md", "note_content": newPaper, "expected_version": page.Note.Version})
	ok(t, c, "update_note", string(args), &change)
	if change.OriginalNote.Content != paper || change.UpdatedNote.Content != newPaper || change.OriginalNote.Version != created.Note.Version ||
		change.UpdatedNote.Version == created.Note.Version || !strings.HasPrefix(change.ValidationInstructionForLLM, "Please verify the update") {
		t.Fatalf("update_note: %+v", change)
	}
	ok(t, c, "append_note", `{"knowledge_base_name":"ai-research","note_path":"papers/2025-12-10-transformers.md","note_content":"## Notes\nMore."}`, &change)
	if change.UpdatedNote.Content != newPaper+"\n## Notes\nMore." || change.OriginalNote.Content != newPaper {
		t.Fatalf("append_note: %+v", change)
	}
	if got, _ := f.read(t, "research/ai/papers/2025-12-10-transformers.md"); got != change.UpdatedNote.Content {
		t.Fatalf("file: %q", got)
	}

	var moved kb.MoveNoteResponse
	ok(t, c, "move_note", `{"knowledge_base_name":"ai-research","origin_note_path":"concepts/backprop.md","new_note_path":"concepts/basics/backpropagation.md"}`, &moved)
	if moved.OriginPath != "research/ai/concepts/backprop.md" || moved.NewPath != "research/ai/concepts/basics/backpropagation.md" || !moved.MachineValidation.Passed ||
		!reflect.DeepEqual(moved.LinksUpdated, kb.LinksUpdated{FilesChanged: 1, LinksChanged: 1, Relinked: []kb.RelinkedNote{{Path: "research/ai/papers/2025-12-10-transformers.md", Links: 1}}}) ||
		moved.ValidationInstructionForLLM == "" {
		t.Fatalf("move: %+v", moved)
	}

	got := ok(t, c, "list_notes", `{"knowledge_base_name":"ai-research"}`, nil)
	if got != `{"knowledge_base":{"name":"ai-research","subfolder":"research/ai"},"notes":[{"path":"research/ai/concepts/attention.md"},{"path":"research/ai/concepts/basics/backpropagation.md"},{"path":"research/ai/papers/2025-12-10-transformers.md"}],"offset":0,"next_offset":3,"has_more":false,"remaining_notes":0,"total_notes":3}` {
		t.Fatalf("list_notes: %s", got)
	}
	got = ok(t, c, "list_notes", `{"knowledge_base_name":"ai-research","subfolder":"concepts/basics"}`, nil)
	if got != `{"knowledge_base":{"name":"ai-research","subfolder":"research/ai"},"notes":[{"path":"research/ai/concepts/basics/backpropagation.md"}],"offset":0,"next_offset":1,"has_more":false,"remaining_notes":0,"total_notes":1}` {
		t.Fatalf("list_notes filtered: %s", got)
	}

	var valid kb.ValidateNoteResponse
	ok(t, c, "validate_note", `{"knowledge_base_name":"ai-research","note_path":"concepts/attention.md"}`, &valid)
	if !valid.MachineValidation.Passed || valid.Note.Content != "# Attention\n" {
		t.Fatalf("validate: %+v", valid)
	}
	// A constraint added later: validate_note reports, it does not refuse.
	ok(t, c, "add_knowledge_base_folder_constraint", `{"kb_name":"ai-research","subfolder":"research/ai/concepts","rules":{"content":{"required_sections":["## Summary"]}}}`, nil)
	ok(t, c, "validate_note", `{"knowledge_base_name":"ai-research","note_path":"concepts/attention.md"}`, &valid)
	if valid.MachineValidation.Passed || len(valid.MachineValidation.Issues) != 1 || valid.MachineValidation.Issues[0].Error != "missing_section" ||
		!strings.Contains(valid.ValidationInstructionForLLM, "fails its folder constraint") {
		t.Fatalf("validate failing: %+v", valid)
	}

	got = ok(t, c, "delete_note", `{"knowledge_base_name":"ai-research","note_path":"concepts/attention.md"}`, nil)
	if got != `{"knowledge_base":{"name":"ai-research","subfolder":"research/ai"},"deleted_path":"research/ai/concepts/attention.md"}` {
		t.Fatalf("delete: %s", got)
	}
	if _, exists := f.read(t, "research/ai/concepts/attention.md"); exists {
		t.Fatal("the file is still there")
	}
}

func TestConstraintViolationIsTheSpecsErrorShape(t *testing.T) {
	f := newFixture(t, nil)
	ok(t, f.client, "add_knowledge_base", specAddKB, nil)
	ok(t, f.client, "add_knowledge_base_folder_constraint", specConstraint, nil)
	bad := strings.Replace(paper, "status: read", "status: pending", 1)
	_, text := call(t, f.client, "create_note", createArgs("papers/transformers.md", bad))
	want := `{"error":{"code":"folder_constraint_violation","message":"Note does not satisfy folder constraint requirements",` +
		`"constraint":{"kb_name":"ai-research","subfolder":"research/ai/papers"},"issues":[` +
		`{"field":"frontmatter.status","error":"invalid_value","expected":["reading","read","summarized"],"actual":"pending","message":"frontmatter.status is \"pending\"; allowed: [\"reading\",\"read\",\"summarized\"]"},` +
		`{"field":"filename","error":"pattern_mismatch","expected":"^\\d{4}-\\d{2}-\\d{2}-[a-z0-9-]+\\.md$","actual":"transformers.md","pattern":"^\\d{4}-\\d{2}-\\d{2}-[a-z0-9-]+\\.md$","message":"file name \"transformers.md\" does not match the pattern ^\\d{4}-\\d{2}-\\d{2}-[a-z0-9-]+\\.md$"}]}}`
	if text != want {
		t.Fatalf("got\n%s\nwant\n%s", text, want)
	}
	if _, exists := f.read(t, "research/ai/papers/transformers.md"); exists {
		t.Fatal("a refused note was written")
	}
}

func TestErrorCodesOverMCP(t *testing.T) {
	f := newFixture(t, map[string]string{"outside/secret.md": "secret"})
	c := f.client
	ok(t, c, "add_knowledge_base", specAddKB, nil)
	ok(t, c, "add_knowledge_base_folder_constraint", specConstraint, nil)
	var created kb.CreateNoteResponse
	ok(t, c, "create_note", createArgs("concepts/a.md", "a"), &created)
	ok(t, c, "create_note", createArgs("concepts/b.md", "b"), nil)

	const kbn = `"knowledge_base_name":"ai-research"`
	cases := []struct {
		name, tool, args, code, msgHas string
	}{
		{"unknown KB", "create_note", `{"knowledge_base_name":"nope","note_path":"a.md","note_content":"x"}`, kb.CodeKnowledgeBaseNotFound, `"nope"`},
		{"unknown KB to list", "list_notes", `{"knowledge_base_name":"nope"}`, kb.CodeKnowledgeBaseNotFound, "list_knowledge_bases"},
		{"unknown KB to update", "update_knowledge_base", `{"name":"nope","description":"x"}`, kb.CodeKnowledgeBaseNotFound, ""},
		{"unknown KB to constrain", "add_knowledge_base_folder_constraint", `{"kb_name":"nope","subfolder":"x","rules":{}}`, kb.CodeKnowledgeBaseNotFound, ""},
		{"a KB name that climbs", "read_note", `{"knowledge_base_name":"../ai-research","note_path":"concepts/a.md"}`, kb.CodeKnowledgeBaseNotFound, ""},
		{"KB exists", "add_knowledge_base", specAddKB, kb.CodeKnowledgeBaseAlreadyExists, "ai-research"},
		{"overlap", "add_knowledge_base", `{"name":"r","description":"","subfolder":"research","organization_rules":""}`, kb.CodeSubfolderOverlap, `"ai-research"`},
		{"constraint violation", "create_note", createArgs("papers/x.md", "no frontmatter"), kb.CodeFolderConstraintViolation, "folder constraint"},
		{"read missing", "read_note", `{` + kbn + `,"note_path":"missing.md"}`, kb.CodeNoteNotFound, "missing.md"},
		{"read with the vault path", "read_note", `{` + kbn + `,"note_path":"research/ai/concepts/a.md"}`, kb.CodeNoteNotFound, "leave that prefix out"},
		{"update missing", "update_note", `{` + kbn + `,"note_path":"missing.md","note_content":"x"}`, kb.CodeNoteNotFound, ""},
		{"append missing", "append_note", `{` + kbn + `,"note_path":"missing.md","note_content":"x"}`, kb.CodeNoteNotFound, ""},
		{"delete missing", "delete_note", `{` + kbn + `,"note_path":"missing.md"}`, kb.CodeNoteNotFound, ""},
		{"validate missing", "validate_note", `{` + kbn + `,"note_path":"missing.md"}`, kb.CodeNoteNotFound, ""},
		{"move missing", "move_note", `{` + kbn + `,"origin_note_path":"missing.md","new_note_path":"x.md"}`, kb.CodeNoteNotFound, ""},
		{"create existing", "create_note", createArgs("concepts/a.md", "again"), kb.CodeNoteAlreadyExists, "update_note"},
		{"move onto existing", "move_note", `{` + kbn + `,"origin_note_path":"concepts/a.md","new_note_path":"concepts/b.md"}`, kb.CodeNoteAlreadyExists, ""},
		{"traversal", "read_note", `{` + kbn + `,"note_path":"../../outside/secret.md"}`, kb.CodeInvalidNotePath, `".." may not appear`},
		{"traversal in the middle", "create_note", createArgs("concepts/../../../outside/x.md", "x"), kb.CodeInvalidNotePath, ""},
		{"absolute", "read_note", `{` + kbn + `,"note_path":"/etc/passwd"}`, kb.CodeInvalidNotePath, "absolute"},
		{"backslashes", "delete_note", `{` + kbn + `,"note_path":"..\\..\\outside\\secret.md"}`, kb.CodeInvalidNotePath, `"\"`},
		{"NUL byte", "read_note", `{` + kbn + `,"note_path":"a\u0000.md"}`, kb.CodeInvalidNotePath, "control character"},
		{"hidden metadata", "read_note", `{` + kbn + `,"note_path":".llm_bridges/knowledge_base/ai-research/meta.md"}`, kb.CodeInvalidNotePath, "dot"},
		{"not markdown", "create_note", createArgs("concepts/a.txt", "x"), kb.CodeInvalidNotePath, ".md"},
		{"move out of the KB", "move_note", `{` + kbn + `,"origin_note_path":"concepts/a.md","new_note_path":"../../outside/a.md"}`, kb.CodeInvalidNotePath, ""},
		{"constraint outside the KB", "add_knowledge_base_folder_constraint", `{"kb_name":"ai-research","subfolder":"research/aiX","rules":{}}`, kb.CodeInvalidNotePath, "outside"},
		{"list outside the KB", "list_notes", `{` + kbn + `,"subfolder":"../.."}`, kb.CodeInvalidNotePath, ""},
		{"KB subfolder outside the vault", "add_knowledge_base", `{"name":"x","description":"","subfolder":"../up","organization_rules":""}`, kb.CodeInvalidNotePath, ""},
		{"stale version", "update_note", `{` + kbn + `,"note_path":"concepts/a.md","note_content":"x","expected_version":"0000"}`, kb.CodeVersionConflict, "read it again"},
		{"bad regex", "add_knowledge_base_folder_constraint", `{"kb_name":"ai-research","subfolder":"research/ai","rules":{"filename":{"pattern":"(["}}}`, kb.CodeSchemaValidationFailed, "not a valid regular expression"},
		{"unknown field type", "add_knowledge_base_folder_constraint", `{"kb_name":"ai-research","subfolder":"research/ai","rules":{"frontmatter":{"required_fields":[{"name":"a","type":"text"}]}}}`, kb.CodeSchemaValidationFailed, "type"},
		{"unknown rule key", "add_knowledge_base_folder_constraint", `{"kb_name":"ai-research","subfolder":"research/ai","rules":{"filenames":{}}}`, kb.CodeSchemaValidationFailed, "filenames"},
		{"rules not an object", "add_knowledge_base_folder_constraint", `{"kb_name":"ai-research","subfolder":"research/ai","rules":"x"}`, kb.CodeSchemaValidationFailed, "rules: got string, want object"},
		{"min above max", "add_knowledge_base_folder_constraint", `{"kb_name":"ai-research","subfolder":"research/ai","rules":{"content":{"min_length":5,"max_length":1}}}`, kb.CodeSchemaValidationFailed, "above"},
		{"missing argument", "create_note", `{` + kbn + `,"note_path":"a.md"}`, kb.CodeSchemaValidationFailed, "note_content"},
		{"no arguments at all", "read_note", ``, kb.CodeSchemaValidationFailed, "missing propert"},
		{"wrong type", "read_note", `{` + kbn + `,"note_path":42}`, kb.CodeSchemaValidationFailed, "note_path: got number, want string"},
		{"wrong type for limit", "read_note", `{` + kbn + `,"note_path":"a.md","limit":"10"}`, kb.CodeSchemaValidationFailed, "limit"},
		{"negative offset", "read_note", `{` + kbn + `,"note_path":"a.md","offset":-1}`, kb.CodeSchemaValidationFailed, "offset: minimum"},
		{"zero limit", "read_note", `{` + kbn + `,"note_path":"a.md","limit":0}`, kb.CodeSchemaValidationFailed, "limit: minimum"},
		{"the other tools' KB argument", "create_note", `{"kb_name":"ai-research","note_path":"a.md","note_content":"x"}`, kb.CodeSchemaValidationFailed, "kb_name"},
		{"a KB name with a slash", "add_knowledge_base", `{"name":"a/b","description":"","subfolder":"x","organization_rules":""}`, kb.CodeSchemaValidationFailed, "name"},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := fail(t, c, tc.tool, tc.args)
			if body.Code != tc.code || !strings.Contains(body.Message, tc.msgHas) {
				t.Fatalf("got %+v, want %s with %q", body, tc.code, tc.msgHas)
			}
		})
		seen[tc.code] = true
	}
	for _, code := range []string{kb.CodeKnowledgeBaseNotFound, kb.CodeKnowledgeBaseAlreadyExists, kb.CodeFolderConstraintViolation, kb.CodeNoteNotFound,
		kb.CodeNoteAlreadyExists, kb.CodeInvalidNotePath, kb.CodeSchemaValidationFailed, kb.CodeSubfolderOverlap, kb.CodeVersionConflict} {
		if !seen[code] {
			t.Errorf("no case for %s", code)
		}
	}
	if got, _ := f.read(t, "outside/secret.md"); got != "secret" {
		t.Fatal("a refused call touched a file outside the KB")
	}
	body := fail(t, c, "update_note", `{`+kbn+`,"note_path":"concepts/a.md","note_content":"x","expected_version":"0000"}`)
	if body.CurrentVersion != created.Note.Version {
		t.Fatalf("version_conflict carries current_version %q, want %q", body.CurrentVersion, created.Note.Version)
	}
}

// failingNotes fails like a vault whose disk is gone.
type failingNotes struct{ kb.Notes }

var errDisk = errors.New("open /home/alice/vault/research/x.md: input/output error")

func (failingNotes) ReadNote(context.Context, string, string, int, int) (*kbase.NotePage, error) {
	return nil, fmt.Errorf("kb: read: %w", errDisk)
}

func (failingNotes) ListNotes(ctx context.Context, _, _ string, _, _ int) (*kbase.NoteList, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestProviderErrorsHideTheCauseAndLogItOnce(t *testing.T) {
	var logs bytes.Buffer
	c := connect(t, kb.Tools(kb.Deps{Notes: failingNotes{}, Logger: slog.New(slog.NewTextHandler(&logs, nil))}))
	_, text := call(t, c, "read_note", `{"knowledge_base_name":"k","note_path":"x.md"}`)
	body := fail(t, c, "read_note", `{"knowledge_base_name":"k","note_path":"x.md"}`)
	if body.Code != kb.CodeProviderError || strings.Contains(text, "alice") || strings.Contains(text, "input/output") {
		t.Fatalf("%s", text)
	}
	if n := strings.Count(logs.String(), "input/output error"); n != 2 { // two calls, once each
		t.Fatalf("cause logged %d times:\n%s", n, logs.String())
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	handler := kb.ListNotesHandler(kb.Deps{Notes: failingNotes{}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	var req mcp.CallToolRequest
	req.Params.Name = "list_notes"
	req.Params.Arguments = json.RawMessage(`{"knowledge_base_name":"k"}`)
	res, err := handler(ctx, req)
	if err != nil || !res.IsError || !strings.Contains(fmt.Sprint(res.Content), "cancelled or timed out") {
		t.Fatalf("a timed out call: %+v, %v", res, err)
	}
}

func TestConcurrentUpdatesWithOneVersionHaveOneWinner(t *testing.T) {
	f := newFixture(t, nil)
	ok(t, f.client, "add_knowledge_base", specAddKB, nil)
	var created kb.CreateNoteResponse
	ok(t, f.client, "create_note", createArgs("race.md", "start"), &created)

	const writers = 24
	var wg sync.WaitGroup
	results := make([]kb.NoteChangeResponse, writers)
	codes := make([]string, writers)
	start := make(chan struct{})
	for i := range writers {
		wg.Go(func() {
			<-start
			args, _ := json.Marshal(map[string]string{"knowledge_base_name": "ai-research", "note_path": "race.md",
				"note_content": fmt.Sprintf("writer %d", i), "expected_version": created.Note.Version})
			res, text := call(t, f.client, "update_note", string(args))
			if res.IsError {
				var er kb.ErrorResponse
				_ = json.Unmarshal([]byte(text), &er)
				codes[i] = er.Error.Code
				return
			}
			_ = json.Unmarshal([]byte(text), &results[i])
		})
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, code := range codes {
		switch code {
		case "":
			if winner != -1 {
				t.Fatalf("writers %d and %d both won", winner, i)
			}
			winner = i
		case kb.CodeVersionConflict:
		default:
			t.Fatalf("writer %d: %s", i, code)
		}
	}
	if winner == -1 {
		t.Fatal("no writer won")
	}
	got, _ := f.read(t, "research/ai/race.md")
	if got != fmt.Sprintf("writer %d", winner) || results[winner].UpdatedNote.Content != got || results[winner].OriginalNote.Content != "start" {
		t.Fatalf("file holds %q, winner %d answered %+v", got, winner, results[winner])
	}
}

func TestNotesWrittenByTheToolsAreInTheGraphAtOnce(t *testing.T) {
	f := newFixture(t, map[string]string{"research/ai/concepts/backprop.md": "# Backprop\n"})
	c := f.client
	ok(t, c, "add_knowledge_base", specAddKB, nil)
	ok(t, c, "create_note", createArgs("concepts/attention.md", "---\ntitle: Attention\ntags: [nlp]\n---\nUses [[backprop]]."), nil)
	var node struct {
		ID    string   `json:"id"`
		Title string   `json:"title"`
		Tags  []string `json:"tags"`
		Links []struct {
			ID string `json:"id"`
		} `json:"links"`
	}
	ok(t, c, "get_node", `{"id":"research/ai/concepts/attention.md"}`, &node)
	if node.Title != "Attention" || len(node.Tags) != 1 || len(node.Links) != 1 || node.Links[0].ID != "research/ai/concepts/backprop.md" {
		t.Fatalf("graph node: %+v", node)
	}
	ok(t, c, "move_note", `{"knowledge_base_name":"ai-research","origin_note_path":"concepts/attention.md","new_note_path":"attention.md"}`, nil)
	if got := ok(t, c, "get_node", `{"id":"research/ai/concepts/attention.md"}`, nil); got != "null" {
		t.Fatalf("the old node is still there: %s", got)
	}
	ok(t, c, "get_node", `{"id":"research/ai/attention.md"}`, &node)
	ok(t, c, "delete_note", `{"knowledge_base_name":"ai-research","note_path":"attention.md"}`, nil)
	if got := ok(t, c, "get_node", `{"id":"research/ai/attention.md"}`, nil); got != "null" {
		t.Fatalf("the deleted node is still there: %s", got)
	}
}

// A note create_note writes takes over a bare link of another note when
// it is nearer to it ([[Backprop]] in its folder): that link is written
// longer so that it keeps its target, and the answer lists the note
// rewritten, by vault path as move_note's; with nothing rewritten the
// answer has no relinked, spec 002's shape exactly (issue 45.5).
func TestCreateNoteListsTheNotesItRelinked(t *testing.T) {
	f := newFixture(t, map[string]string{
		"research/ai/concepts/backprop.md": "# Backprop\n",
		"research/ai/papers/p.md":          "See [[backprop]] and [[backprop|again]].",
	})
	c := f.client
	ok(t, c, "add_knowledge_base", specAddKB, nil)
	var created kb.CreateNoteResponse
	raw := ok(t, c, "create_note", createArgs("papers/backprop.md", "# Another\n"), &created)
	if !reflect.DeepEqual(created.Relinked, []kb.RelinkedNote{{Path: "research/ai/papers/p.md", Links: 2}}) {
		t.Fatalf("relinked: %s", raw)
	}
	if got, _ := f.read(t, "research/ai/papers/p.md"); got != "See [[concepts/backprop]] and [[concepts/backprop|again]]." {
		t.Fatalf("the linking note: %q", got)
	}
	raw = ok(t, c, "create_note", createArgs("concepts/lonely.md", "# Lonely\n"), nil)
	if strings.Contains(raw, "relinked") {
		t.Fatalf("relinked must be left out when no note was rewritten: %s", raw)
	}
}

// TestReadOnlyHintsAreTruthful calls every tool that declares itself
// read-only and checks that no file changed; every other tool must change
// one when it succeeds.
func TestReadOnlyHintsAreTruthful(t *testing.T) {
	f := newFixture(t, nil)
	ok(t, f.client, "add_knowledge_base", specAddKB, nil)
	ok(t, f.client, "create_note", createArgs("a.md", "a"), nil)
	args := map[string]string{
		"list_knowledge_bases":                 `{}`,
		"add_knowledge_base":                   `{"name":"other","description":"","subfolder":"other","organization_rules":""}`,
		"update_knowledge_base":                `{"name":"ai-research","organization_rules":"new"}`,
		"add_knowledge_base_folder_constraint": `{"kb_name":"ai-research","subfolder":"research/ai","rules":{}}`,
		"create_note":                          createArgs("b.md", "b"),
		"update_note":                          createArgs("a.md", "a2"),
		"append_note":                          createArgs("a.md", "a3"),
		"move_note":                            `{"knowledge_base_name":"ai-research","origin_note_path":"b.md","new_note_path":"c.md"}`,
		"read_note":                            `{"knowledge_base_name":"ai-research","note_path":"a.md"}`,
		"list_notes":                           `{"knowledge_base_name":"ai-research"}`,
		"validate_note":                        `{"knowledge_base_name":"ai-research","note_path":"a.md"}`,
		"delete_note":                          `{"knowledge_base_name":"ai-research","note_path":"c.md"}`,
	}
	fingerprint := func() string {
		var b strings.Builder
		_ = filepath.WalkDir(f.root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				data, _ := os.ReadFile(p)
				fmt.Fprintf(&b, "%s=%q\n", p, data)
			}
			return err
		})
		return b.String()
	}
	for _, spec := range kb.Specs() {
		before := fingerprint()
		ok(t, f.client, spec.Name, args[spec.Name], nil)
		changed := fingerprint() != before
		readOnly := spec.Annotations.ReadOnlyHint != nil && *spec.Annotations.ReadOnlyHint
		if readOnly && changed {
			t.Errorf("%s declares readOnlyHint but changed the vault", spec.Name)
		}
		if !readOnly && !changed {
			t.Errorf("%s declares it writes but changed nothing", spec.Name)
		}
	}
}
