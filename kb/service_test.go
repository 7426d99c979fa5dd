package kb_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/kb"
)

func addKB(t *testing.T, e *env, name, sub string) *kb.KnowledgeBase {
	t.Helper()
	k, err := e.svc.AddKnowledgeBase(t.Context(), kb.NewKnowledgeBase{Name: name, Description: "d " + name, Subfolder: sub, OrganizationRules: "rules of " + name})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func addConstraint(t *testing.T, e *env, kbName, sub, rules string) {
	t.Helper()
	r, err := kb.ParseRules(json.RawMessage(rules))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.AddFolderConstraint(t.Context(), kbName, sub, r); err != nil {
		t.Fatal(err)
	}
}

func TestKnowledgeBaseLifecycle(t *testing.T) {
	e := newEnv(t, nil)
	ctx := t.Context()
	got := addKB(t, e, "notes", "/notes/"[1:]+"//")
	want := kb.KnowledgeBase{Name: "notes", CreateTime: "2025-12-10T14:30:00Z", Description: "d notes", Subfolder: "notes", OrganizationRules: "rules of notes"}
	if *got != want {
		t.Fatalf("added %+v", got)
	}
	if fi, err := os.Stat(filepath.Join(e.root, "notes")); err != nil || !fi.IsDir() {
		t.Fatal("the subfolder is created in the vault, as the plugin does")
	}
	meta, ok := e.read(t, ".llm_bridges/knowledge_base/notes/meta.md")
	if !ok || meta != "---\ncreate_time: \"2025-12-10T14:30:00Z\"\ndescription: \"d notes\"\nsubfolder: \"notes\"\n---\n\nrules of notes" {
		t.Fatalf("meta.md:\n%s", meta)
	}

	cases := []struct {
		name, kbName, sub, code string
	}{
		{"same name", "notes", "elsewhere", kb.CodeKnowledgeBaseAlreadyExists},
		{"same name in another letter case", "NOTES", "elsewhere", kb.CodeKnowledgeBaseAlreadyExists},
		{"same folder", "b", "notes", kb.CodeSubfolderOverlap},
		{"folder inside", "b", "notes/sub", kb.CodeSubfolderOverlap},
		{"folder around", "b", "", kb.CodeSubfolderOverlap},
		{"folder in another letter case", "b", "Notes/x", kb.CodeSubfolderOverlap},
		{"traversal", "b", "../outside", kb.CodeInvalidNotePath},
		{"absolute", "b", "/etc", kb.CodeInvalidNotePath},
		{"hidden", "b", ".llm_bridges", kb.CodeInvalidNotePath},
		{"name with a slash", "a/b", "x", kb.CodeSchemaValidationFailed},
		{"name that climbs", "..", "x", kb.CodeSchemaValidationFailed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.svc.AddKnowledgeBase(ctx, kb.NewKnowledgeBase{Name: c.kbName, Subfolder: c.sub})
			wantCode(t, err, c.code)
		})
	}
	// Segment-wise: notesX shares no note with notes.
	addKB(t, e, "x", "notesX")

	list, err := e.svc.ListKnowledgeBases(ctx)
	if err != nil || len(list) != 2 || list[0].Name != "notes" || list[1].Name != "x" || list[0].OrganizationRulesPreview != "rules of notes" {
		t.Fatalf("list = %+v, %v", list, err)
	}

	desc := "new description"
	upd, notes, err := e.svc.UpdateKnowledgeBase(ctx, "notes", kb.KnowledgeBaseUpdate{Description: &desc})
	if err != nil || upd.Description != desc || upd.CreateTime != want.CreateTime || upd.OrganizationRules != want.OrganizationRules || len(notes) != 0 {
		t.Fatalf("update = %+v, %v, %v", upd, notes, err)
	}
	taken := "notesX/inner"
	_, _, err = e.svc.UpdateKnowledgeBase(ctx, "notes", kb.KnowledgeBaseUpdate{Subfolder: &taken})
	wantCode(t, err, kb.CodeSubfolderOverlap)
	_, _, err = e.svc.UpdateKnowledgeBase(ctx, "nope", kb.KnowledgeBaseUpdate{Description: &desc})
	wantCode(t, err, kb.CodeKnowledgeBaseNotFound)
	_, _, err = e.svc.UpdateKnowledgeBase(ctx, "../notes", kb.KnowledgeBaseUpdate{Description: &desc})
	wantCode(t, err, kb.CodeKnowledgeBaseNotFound)
}

func TestSubfolderChangeSaysWhatItLeftBehind(t *testing.T) {
	e := newEnv(t, map[string]string{"old/a.md": "a", "old/b/c.md": "c"})
	addKB(t, e, "k", "old")
	addConstraint(t, e, "k", "old/b", `{"filename":{"pattern":"^c"}}`)
	sub := "new"
	k, notes, err := e.svc.UpdateKnowledgeBase(t.Context(), "k", kb.KnowledgeBaseUpdate{Subfolder: &sub})
	if err != nil || k.Subfolder != "new" {
		t.Fatal(k, err)
	}
	text := strings.Join(notes, "\n")
	for _, want := range []string{`from "old" to "new"`, "2 note(s) remain under \"old\"", `"old/b"`} {
		if !strings.Contains(text, want) {
			t.Errorf("notes lack %q:\n%s", want, text)
		}
	}
	if _, ok := e.read(t, "old/a.md"); !ok {
		t.Fatal("notes are not moved")
	}
}

func TestConstraintScopeAndRules(t *testing.T) {
	e := newEnv(t, nil)
	ctx := t.Context()
	addKB(t, e, "k", "notes")
	rules, _ := kb.ParseRules(json.RawMessage(`{"filename":{"pattern":"^a"}}`))

	_, err := e.svc.AddFolderConstraint(ctx, "nope", "notes", rules)
	wantCode(t, err, kb.CodeKnowledgeBaseNotFound)
	for _, sub := range []string{"notesX", "other", "", "../notes", "/notes/a"} {
		_, err = e.svc.AddFolderConstraint(ctx, "k", sub, rules)
		wantCode(t, err, kb.CodeInvalidNotePath)
	}
	_, err = e.svc.AddFolderConstraint(ctx, "k", "papers", rules)
	if ke := wantCode(t, err, kb.CodeInvalidNotePath); !strings.Contains(ke.Message, `did you mean "notes/papers"`) {
		t.Errorf("a KB-relative subfolder gets a hint: %s", ke.Message)
	}
	bad := kb.Rules{Filename: &kb.FilenameRules{Pattern: "(("}}
	_, err = e.svc.AddFolderConstraint(ctx, "k", "notes", bad)
	wantCode(t, err, kb.CodeSchemaValidationFailed)
	if entries, _ := os.ReadDir(filepath.Join(e.root, ".llm_bridges/knowledge_base/k/folder_constraints")); len(entries) != 0 {
		t.Fatal("refused rules must not be written")
	}

	c, err := e.svc.AddFolderConstraint(ctx, "k", "notes/papers/", rules)
	if err != nil || c.Subfolder != "notes/papers" || c.KBName != "k" {
		t.Fatal(c, err)
	}
	// A hand-made second file for the same folder; adding again replaces both.
	writeFile(t, filepath.Join(e.root, ".llm_bridges/knowledge_base/k/folder_constraints/extra.md"), "---\nsubfolder: notes/papers\n---\n```yaml\nfilename:\n  pattern: '^zzz'\n```\n")
	addConstraint(t, e, "k", "notes/papers", `{"filename":{"pattern":"^b"}}`)
	entries, _ := os.ReadDir(filepath.Join(e.root, ".llm_bridges/knowledge_base/k/folder_constraints"))
	if len(entries) != 1 || entries[0].Name() != "extra.md" {
		t.Fatalf("constraint files: %v", entries)
	}
	if _, err := e.svc.CreateNote(ctx, "k", "papers/b.md", "x"); err != nil {
		t.Fatalf("the replaced rules apply: %v", err)
	}
	_, err = e.svc.CreateNote(ctx, "k", "papers/a.md", "x")
	wantCode(t, err, kb.CodeFolderConstraintViolation)
}

func TestTheDeepestConstraintApplies(t *testing.T) {
	e := newEnv(t, nil)
	ctx := t.Context()
	addKB(t, e, "k", "notes")
	addConstraint(t, e, "k", "notes", `{"frontmatter":{"required_fields":[{"name":"title","type":"string"}]}}`)
	addConstraint(t, e, "k", "notes/papers", `{"filename":{"pattern":"^\\d{4}-"}}`)
	addConstraint(t, e, "k", "notes/papers/drafts", `{}`)
	addKB(t, e, "other", "notesX")

	cases := []struct {
		path, content, code string
	}{
		{"a.md", "no title", kb.CodeFolderConstraintViolation},
		{"a.md", "---\ntitle: T\n---\n", ""},
		{"deep/er/b.md", "no title", kb.CodeFolderConstraintViolation},
		{"papers/2025-x.md", "no title, but papers only check the name", ""},
		{"papers/x.md", "---\ntitle: T\n---\n", kb.CodeFolderConstraintViolation},
		{"papers/drafts/anything.md", "empty rules exempt a folder", ""},
		{"papers/draftsX/anything.md", "---\ntitle: T\n---\n", kb.CodeFolderConstraintViolation},
	}
	for _, c := range cases {
		_, err := e.svc.CreateNote(ctx, "k", c.path, c.content)
		if code(err) != c.code || c.code == "" && err != nil {
			t.Errorf("%s: err = %v, want %q", c.path, err, c.code)
		}
	}
	if _, err := e.svc.CreateNote(ctx, "other", "free.md", "no constraint: passes"); err != nil {
		t.Fatal(err)
	}

	// Two files declaring the same deepest folder must both pass.
	writeFile(t, filepath.Join(e.root, ".llm_bridges/knowledge_base/k/folder_constraints/second.md"),
		"---\nsubfolder: notes/papers\n---\n```yaml\ncontent:\n  min_length: 50\n```\n")
	_, err := e.svc.CreateNote(ctx, "k", "papers/2025-y.md", "short")
	if ke := wantCode(t, err, kb.CodeFolderConstraintViolation); len(ke.Issues) != 1 || ke.Issues[0].Error != kb.IssueContentTooShort ||
		ke.Constraint == nil || *ke.Constraint != (kb.ConstraintRef{KBName: "k", Subfolder: "notes/papers"}) {
		t.Fatalf("%+v", ke)
	}
}

func TestAFailedValidationWritesNothing(t *testing.T) {
	e := newEnv(t, map[string]string{"notes/keep.md": "---\ntitle: Keep\n---\nbody"})
	ctx := t.Context()
	addKB(t, e, "k", "notes")
	addConstraint(t, e, "k", "notes", `{"frontmatter":{"required_fields":[{"name":"title","type":"string"}]},"content":{"max_length":20}}`)
	addConstraint(t, e, "k", "notes/strict", `{"filename":{"pattern":"^never"}}`)

	_, err := e.svc.CreateNote(ctx, "k", "new.md", "no frontmatter")
	wantCode(t, err, kb.CodeFolderConstraintViolation)
	if _, ok := e.read(t, "notes/new.md"); ok || e.inStore(t, "notes/new.md") {
		t.Fatal("a refused create left a file or a node")
	}
	_, err = e.svc.UpdateNote(ctx, "k", "keep.md", "no frontmatter", "")
	wantCode(t, err, kb.CodeFolderConstraintViolation)
	_, err = e.svc.AppendNote(ctx, "k", "keep.md", "far too long for twenty characters")
	wantCode(t, err, kb.CodeFolderConstraintViolation)
	if got, _ := e.read(t, "notes/keep.md"); got != "---\ntitle: Keep\n---\nbody" {
		t.Fatalf("refused writes changed the note: %q", got)
	}
	_, err = e.svc.MoveNote(ctx, "k", "keep.md", "strict/keep.md")
	wantCode(t, err, kb.CodeFolderConstraintViolation)
	if _, ok := e.read(t, "notes/keep.md"); !ok {
		t.Fatal("a refused move must leave the note where it was")
	}
	if _, ok := e.read(t, "notes/strict/keep.md"); ok || e.inStore(t, "notes/strict/keep.md") || !e.inStore(t, "notes/keep.md") {
		t.Fatal("a refused move wrote the destination")
	}
}

func TestWritesReachTheGraphAtOnce(t *testing.T) {
	e := newEnv(t, map[string]string{"notes/linker.md": "see [[a]]"})
	ctx := t.Context()
	addKB(t, e, "k", "notes")
	if _, err := e.svc.CreateNote(ctx, "k", "a.md", "---\ntags: [ml]\n---\nLinks to [[linker]]"); err != nil {
		t.Fatal(err)
	}
	n, err := e.store.GetNote(ctx, project, "notes/a.md")
	if err != nil || len(n.Tags) != 1 || n.Tags[0] != "ml" || len(n.Links) != 1 || n.Links[0].Target != "notes/linker.md" {
		t.Fatalf("note in the store: %+v, %v", n, err)
	}
	m, err := e.svc.MoveNote(ctx, "k", "a.md", "sub/b.md")
	if err != nil || m.From != "notes/a.md" || m.To != "notes/sub/b.md" || m.FilesChanged != 1 || m.LinksChanged != 1 {
		t.Fatalf("move = %+v, %v", m, err)
	}
	if e.inStore(t, "notes/a.md") || !e.inStore(t, "notes/sub/b.md") {
		t.Fatal("the move is not in the store")
	}
	if linker, _ := e.read(t, "notes/linker.md"); linker != "see [[b]]" {
		t.Fatalf("the incoming link was not rewritten: %q", linker)
	}
	if _, _, err := e.svc.DeleteNote(ctx, "k", "sub/b.md"); err != nil || e.inStore(t, "notes/sub/b.md") {
		t.Fatalf("delete: %v", err)
	}
}

func TestVersions(t *testing.T) {
	e := newEnv(t, nil)
	ctx := t.Context()
	addKB(t, e, "k", "notes")
	created, err := e.svc.CreateNote(ctx, "k", "a.md", "one")
	if err != nil {
		t.Fatal(err)
	}
	page, err := e.svc.ReadNote(ctx, "k", "a.md", 0, 100)
	if err != nil || page.Version != created.Note.Version || page.Content != "one" {
		t.Fatalf("read = %+v, %v", page, err)
	}
	up, err := e.svc.UpdateNote(ctx, "k", "a.md", "two", created.Note.Version)
	if err != nil || up.Original.Content != "one" || up.Original.Version != created.Note.Version || up.Updated.Version == created.Note.Version {
		t.Fatalf("update = %+v, %v", up, err)
	}
	_, err = e.svc.UpdateNote(ctx, "k", "a.md", "three", created.Note.Version)
	if ke := wantCode(t, err, kb.CodeVersionConflict); ke.CurrentVersion != up.Updated.Version {
		t.Fatalf("current version %q, want %q", ke.CurrentVersion, up.Updated.Version)
	}
	// A writer outside the tools (an editor) changes the file.
	writeFile(t, filepath.Join(e.root, "notes/a.md"), "edited")
	_, err = e.svc.UpdateNote(ctx, "k", "a.md", "four", up.Updated.Version)
	wantCode(t, err, kb.CodeVersionConflict)
	if got, _ := e.read(t, "notes/a.md"); got != "edited" {
		t.Fatalf("a conflict wrote: %q", got)
	}
	// Without expected_version the update replaces what is there now.
	up, err = e.svc.UpdateNote(ctx, "k", "a.md", "five", "")
	if err != nil || up.Original.Content != "edited" {
		t.Fatalf("update = %+v, %v", up, err)
	}
	app, err := e.svc.AppendNote(ctx, "k", "a.md", "six")
	if err != nil || app.Updated.Content != "five\nsix" {
		t.Fatalf("append = %+v, %v", app, err)
	}
}

func TestNoteErrors(t *testing.T) {
	e := newEnv(t, map[string]string{"notes/a.md": "a", "outside/secret.md": "secret"})
	ctx := t.Context()
	addKB(t, e, "k", "notes")
	if err := os.Symlink(filepath.Join(e.root, "outside"), filepath.Join(e.root, "notes", "link")); err != nil {
		t.Skip("symbolic links unsupported:", err)
	}
	escape := []string{"../outside/secret.md", "/outside/secret.md", "a/../../outside/secret.md", `..\outside\secret.md`, "a\x00.md", ".hidden.md", "link/secret.md", "x/", "a.txt", ""}
	for _, p := range escape {
		_, err := e.svc.ReadNote(ctx, "k", p, 0, 10)
		wantCode(t, err, kb.CodeInvalidNotePath)
		_, err = e.svc.CreateNote(ctx, "k", p, "x")
		wantCode(t, err, kb.CodeInvalidNotePath)
	}
	_, err := e.svc.CreateNote(ctx, "k", "a.md", "again")
	wantCode(t, err, kb.CodeNoteAlreadyExists)
	_, err = e.svc.UpdateNote(ctx, "k", "missing.md", "x", "")
	wantCode(t, err, kb.CodeNoteNotFound)
	_, err = e.svc.AppendNote(ctx, "k", "missing.md", "x")
	wantCode(t, err, kb.CodeNoteNotFound)
	_, _, err = e.svc.DeleteNote(ctx, "k", "missing.md")
	wantCode(t, err, kb.CodeNoteNotFound)
	_, err = e.svc.ValidateNote(ctx, "k", "missing.md")
	wantCode(t, err, kb.CodeNoteNotFound)
	_, err = e.svc.ReadNote(ctx, "k", "notes/a.md", 0, 10)
	if ke := wantCode(t, err, kb.CodeNoteNotFound); !strings.Contains(ke.Message, "relative to the knowledge base's subfolder") {
		t.Errorf("a vault-relative note_path gets a hint: %s", ke.Message)
	}
	_, err = e.svc.MoveNote(ctx, "k", "missing.md", "b.md")
	wantCode(t, err, kb.CodeNoteNotFound)
	_, err = e.svc.CreateNote(ctx, "k", "b.md", "b")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.MoveNote(ctx, "k", "a.md", "b.md")
	wantCode(t, err, kb.CodeNoteAlreadyExists)
	_, err = e.svc.MoveNote(ctx, "k", "a.md", "a.md")
	wantCode(t, err, kb.CodeNoteAlreadyExists)
	_, err = e.svc.MoveNote(ctx, "k", "a.md", "../outside/a.md")
	wantCode(t, err, kb.CodeInvalidNotePath)
	_, err = e.svc.CreateNote(ctx, "k", "bad[name].md", "x")
	wantCode(t, err, kb.CodeInvalidNotePath)
	_, err = e.svc.CreateNote(ctx, "nope", "a.md", "x")
	wantCode(t, err, kb.CodeKnowledgeBaseNotFound)
	_, err = e.svc.ListNotes(ctx, "k", "../outside", 0, 0)
	wantCode(t, err, kb.CodeInvalidNotePath)
	_, err = e.svc.ListNotes(ctx, "k", "link", 0, 0)
	wantCode(t, err, kb.CodeInvalidNotePath)
	if got, _ := e.read(t, "outside/secret.md"); got != "secret" {
		t.Fatal("a refused path was written")
	}
}

func TestListNotes(t *testing.T) {
	e := newEnv(t, map[string]string{
		"notes/b.md": "", "notes/a/c.MD": "", "notes/a/d.txt": "", "notes/.hidden.md": "", "notes/.trash/x.md": "",
		"notesX/no.md": "", "other.md": "",
	})
	addKB(t, e, "k", "notes")
	l, err := e.svc.ListNotes(t.Context(), "k", "", 0, 0)
	if err != nil || l.KB.Name != "k" || strings.Join(l.Paths, ",") != "notes/a/c.MD,notes/b.md" || l.Total != 2 || l.HasMore {
		t.Fatalf("list = %+v, %v", l, err)
	}
	l, err = e.svc.ListNotes(t.Context(), "k", "a/", 0, 0)
	if err != nil || strings.Join(l.Paths, ",") != "notes/a/c.MD" {
		t.Fatalf("filtered = %+v, %v", l, err)
	}
	_, err = e.svc.ListNotes(t.Context(), "k", "missing", 0, 0)
	wantCode(t, err, kb.CodeInvalidNotePath)
	if !strings.Contains(err.Error(), `its folders: "a"`) || !strings.Contains(err.Error(), "leave subfolder out") {
		t.Fatalf("missing folder: %v", err)
	}
	_, err = e.svc.ListNotes(t.Context(), "k", "notes/missing", 0, 0)
	wantCode(t, err, kb.CodeInvalidNotePath)
}

func TestListNotesPages(t *testing.T) {
	files := map[string]string{}
	for i := range 7 {
		files[fmt.Sprintf("notes/n%d.md", i)] = ""
	}
	e := newEnv(t, files)
	addKB(t, e, "k", "notes")
	var got []string
	for offset, calls := 0, 0; ; calls++ {
		l, err := e.svc.ListNotes(t.Context(), "k", "", offset, 3)
		if err != nil {
			t.Fatal(err)
		}
		if l.Offset != offset || l.Total != 7 || l.NextOffset != offset+len(l.Paths) || l.Remaining != 7-l.NextOffset || l.HasMore != (l.NextOffset < 7) {
			t.Fatalf("page at %d = %+v", offset, l)
		}
		got = append(got, l.Paths...)
		if !l.HasMore {
			if calls != 2 {
				t.Fatalf("%d pages, want 3", calls+1)
			}
			break
		}
		offset = l.NextOffset
	}
	if strings.Join(got, ",") != "notes/n0.md,notes/n1.md,notes/n2.md,notes/n3.md,notes/n4.md,notes/n5.md,notes/n6.md" {
		t.Fatalf("pages = %v", got)
	}
	l, err := e.svc.ListNotes(t.Context(), "k", "", 100, 3)
	if err != nil || len(l.Paths) != 0 || l.Offset != 7 || l.HasMore {
		t.Fatalf("past the end = %+v, %v", l, err)
	}
	l, err = e.svc.ListNotes(t.Context(), "k", "", 0, 0)
	if err != nil || len(l.Paths) != 7 {
		t.Fatalf("default limit = %+v, %v", l, err)
	}
}

// A subfolder filter written vault-relative (it starts with the KB's
// subfolder) is answered with what to pass instead (issue 22), unless
// such a folder exists inside the KB.
func TestListNotesSaysWhatToPassForAVaultRelativeFilter(t *testing.T) {
	e := newEnv(t, map[string]string{"research/ai/papers/a.md": "", "research/ai/b.md": ""})
	addKB(t, e, "k", "research/ai")
	_, err := e.svc.ListNotes(t.Context(), "k", "research/ai/papers", 0, 0)
	if ke := wantCode(t, err, kb.CodeInvalidNotePath); !strings.Contains(ke.Message, `pass "papers"`) {
		t.Fatalf("message = %s", ke.Message)
	}
	_, err = e.svc.ListNotes(t.Context(), "k", "research/ai", 0, 0)
	if ke := wantCode(t, err, kb.CodeInvalidNotePath); !strings.Contains(ke.Message, "leave it out") {
		t.Fatalf("message = %s", ke.Message)
	}
	l, err := e.svc.ListNotes(t.Context(), "k", "papers", 0, 0)
	if err != nil || strings.Join(l.Paths, ",") != "research/ai/papers/a.md" {
		t.Fatalf("kb-relative = %+v, %v", l, err)
	}
	writeFile(t, filepath.Join(e.root, "research/ai/research/ai/x.md"), "")
	l, err = e.svc.ListNotes(t.Context(), "k", "research/ai", 0, 0)
	if err != nil || strings.Join(l.Paths, ",") != "research/ai/research/ai/x.md" {
		t.Fatalf("a real inner folder of that name = %+v, %v", l, err)
	}
}

func TestMetadataCacheIsKeptInStep(t *testing.T) {
	e := newEnv(t, nil)
	addKB(t, e, "a", "a")
	if _, ok := e.read(t, ".llm_bridges/knowledge_base/metadata.json"); ok {
		t.Fatal("the cache is not created when the plugin has none")
	}
	writeFile(t, filepath.Join(e.root, ".llm_bridges/knowledge_base/metadata.json"), `{"updated_at":"x","knowledge_bases":[],"plugin_extra":1}`)
	addKB(t, e, "b", "b")
	rules := strings.Repeat("é", 250)
	if _, _, err := e.svc.UpdateKnowledgeBase(t.Context(), "a", kb.KnowledgeBaseUpdate{OrganizationRules: &rules}); err != nil {
		t.Fatal(err)
	}
	raw, _ := e.read(t, ".llm_bridges/knowledge_base/metadata.json")
	var cache struct {
		UpdatedAt      string       `json:"updated_at"`
		KnowledgeBases []kb.Summary `json:"knowledge_bases"`
		PluginExtra    int          `json:"plugin_extra"`
	}
	if err := json.Unmarshal([]byte(raw), &cache); err != nil {
		t.Fatal(err)
	}
	if len(cache.KnowledgeBases) != 2 || cache.KnowledgeBases[1].Name != "b" || cache.PluginExtra != 1 || cache.UpdatedAt != "2025-12-10T14:30:00.000Z" {
		t.Fatalf("cache:\n%s", raw)
	}
	if p := cache.KnowledgeBases[0].OrganizationRulesPreview; p != strings.Repeat("é", 200)+"..." {
		t.Fatalf("preview %q", p)
	}
}

func TestUnusableConstraintFilesAreReportedWhereTheyApply(t *testing.T) {
	e := newEnv(t, nil)
	ctx := t.Context()
	addKB(t, e, "k", "notes")
	writeFile(t, filepath.Join(e.root, ".llm_bridges/knowledge_base/k/folder_constraints/broken.md"),
		"---\nsubfolder: notes/broken\n---\n```yaml\nfilename: [unclosed\n```\n")
	writeFile(t, filepath.Join(e.root, ".llm_bridges/knowledge_base/k/folder_constraints/nosub.md"), "no frontmatter at all")
	_, err := e.svc.CreateNote(ctx, "k", "broken/a.md", "x")
	if ke := wantCode(t, err, kb.CodeSchemaValidationFailed); !strings.Contains(ke.Message, "broken.md") {
		t.Fatalf("the message must name the file: %s", ke.Message)
	}
	if _, err := e.svc.CreateNote(ctx, "k", "fine/a.md", "x"); err != nil {
		t.Fatalf("elsewhere the broken file does not apply: %v", err)
	}
}
