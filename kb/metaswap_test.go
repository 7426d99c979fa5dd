package kb_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/kb"
)

// TestUpdateKnowledgeBaseKeepsAnOutsideEdit (issue 43: no path writes a
// note without compare-and-write): meta.md changed by an editor between
// update_knowledge_base's read and its write is read again; the update's
// field is applied to what the editor saved, whose other fields stay.
func TestUpdateKnowledgeBaseKeepsAnOutsideEdit(t *testing.T) {
	e := newEnv(t, map[string]string{"notes/a.md": "a\n"})
	ctx := t.Context()
	if _, err := e.svc.AddKnowledgeBase(ctx, kb.NewKnowledgeBase{Name: "k", Subfolder: "notes", Description: "old", OrganizationRules: "rules as added"}); err != nil {
		t.Fatal(err)
	}
	meta := filepath.Join(e.root, ".llm_bridges", "knowledge_base", "k", "meta.md")
	defer kb.SetMetaWriteHook(func(attempt int) {
		if attempt != 1 {
			return
		}
		raw, err := os.ReadFile(meta)
		if err != nil {
			t.Error(err)
			return
		}
		if err := os.WriteFile(meta, []byte(strings.Replace(string(raw), "rules as added", "rules an editor wrote", 1)), 0o644); err != nil {
			t.Error(err)
		}
	})()
	desc := "new"
	got, _, err := e.svc.UpdateKnowledgeBase(ctx, "k", kb.KnowledgeBaseUpdate{Description: &desc})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(meta)
	if got.Description != "new" || got.OrganizationRules != "rules an editor wrote" ||
		!strings.Contains(string(raw), `description: "new"`) || !strings.Contains(string(raw), "rules an editor wrote") {
		t.Errorf("after an editor's save during the update: %+v, file:\n%s", got, raw)
	}
}
