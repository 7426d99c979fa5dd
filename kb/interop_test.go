package kb_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/kb"
	"gopkg.in/yaml.v3"
)

// The fixture testdata/pluginvault holds .llm_bridges files exactly as the
// Obsidian plugin writes them, raw regular expressions in double quotes
// included.

func TestPluginVaultIsListed(t *testing.T) {
	e := newEnvFrom(t, "testdata/pluginvault")
	list, err := e.svc.ListKnowledgeBases(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []kb.Summary{
		{Name: "ai-research", Description: "AI/ML research papers and concepts", Subfolder: "research/ai", CreateTime: "2025-12-10T14:30:00.000Z",
			OrganizationRulesPreview: "## Guidelines\n1. One concept per note\n2. Use date-prefixed filenames for papers"},
		{Name: "daily-notes", Description: `Daily journal entries with "mood" tracking`, Subfolder: "journal/daily", CreateTime: "2025-12-01T09:00:00.000Z",
			OrganizationRulesPreview: "Daily entries with date-based naming."},
	}
	if len(list) != len(want) || list[0] != want[0] || list[1] != want[1] {
		t.Fatalf("got %+v", list)
	}
}

func TestPluginVaultIsValidatedWithItsRawRegexes(t *testing.T) {
	e := newEnvFrom(t, "testdata/pluginvault")
	ctx := t.Context()
	res, err := e.svc.ValidateNote(ctx, "ai-research", "papers/2025-12-08-attention.md")
	if err != nil || !res.Validation.Passed {
		t.Fatalf("valid paper: %+v, %v", res, err)
	}
	res, err = e.svc.ValidateNote(ctx, "ai-research", "papers/transformers.md")
	if err != nil || res.Validation.Passed {
		t.Fatalf("invalid paper: %+v, %v", res, err)
	}
	var got []string
	for _, i := range res.Validation.Issues {
		got = append(got, i.Field+":"+i.Error)
	}
	want := "frontmatter.published_date:invalid_field_type,frontmatter.status:invalid_value,filename:pattern_mismatch,content:content_too_short,content.sections:missing_section"
	if strings.Join(got, ",") != want {
		t.Fatalf("issues %v", got)
	}
	if p := res.Validation.Issues[2].Pattern; p != `^\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.md$` {
		t.Fatalf("the raw filename regex was read as %q", p)
	}
	// The date pattern, written raw too, is applied.
	_, err = e.svc.CreateNote(ctx, "ai-research", "papers/2025-12-11-gpt.md",
		"---\ntitle: GPT\npublished_date: 2025-12-11T10:00:00Z\nstatus: reading\n---\n## Summary\nGenerative pre-training.")
	if ke := wantCode(t, err, kb.CodeFolderConstraintViolation); len(ke.Issues) != 1 || ke.Issues[0].Field != "frontmatter.published_date" || ke.Issues[0].Error != kb.IssuePatternMismatch {
		t.Fatalf("%+v", ke.Issues)
	}
	// Daily notes: filename regex written raw.
	if _, err := e.svc.CreateNote(ctx, "daily-notes", "2025-12-02.md", "Fine."); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.CreateNote(ctx, "daily-notes", "today.md", "Fine.")
	wantCode(t, err, kb.CodeFolderConstraintViolation)
	// Concepts have no constraint: anything goes.
	if _, err := e.svc.CreateNote(ctx, "ai-research", "concepts/attention.md", "x"); err != nil {
		t.Fatal(err)
	}
}

func TestPluginVaultIsExtended(t *testing.T) {
	e := newEnvFrom(t, "testdata/pluginvault")
	ctx := t.Context()
	originalDaily, _ := e.read(t, ".llm_bridges/knowledge_base/daily-notes/folder_constraints/journal_daily.md")

	if _, err := e.svc.AddKnowledgeBase(ctx, kb.NewKnowledgeBase{Name: "projects", Description: "Projects", Subfolder: "projects", OrganizationRules: "One folder per project."}); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.AddKnowledgeBase(ctx, kb.NewKnowledgeBase{Name: "ml", Subfolder: "research"})
	wantCode(t, err, kb.CodeSubfolderOverlap)

	// The plugin lists from metadata.json when it is not empty: it must
	// show the new knowledge base.
	raw, _ := e.read(t, ".llm_bridges/knowledge_base/metadata.json")
	var cache struct {
		KnowledgeBases []kb.Summary `json:"knowledge_bases"`
	}
	if err := json.Unmarshal([]byte(raw), &cache); err != nil {
		t.Fatal(err)
	}
	if len(cache.KnowledgeBases) != 3 || cache.KnowledgeBases[2].Name != "projects" || cache.KnowledgeBases[1].Description != `Daily journal entries with "mood" tracking` {
		t.Fatalf("cache:\n%s", raw)
	}

	// Replace the papers constraint: the plugin's file is rewritten in
	// place, now as valid YAML, and its rules apply.
	rules, err := kb.ParseRules(json.RawMessage(`{"filename":{"pattern":"^\\d{4}-"},"frontmatter":{"required_fields":[{"name":"title","type":"string","pattern":"^\\S"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.AddFolderConstraint(ctx, "ai-research", "research/ai/papers", rules); err != nil {
		t.Fatal(err)
	}
	file, ok := e.read(t, ".llm_bridges/knowledge_base/ai-research/folder_constraints/research_ai_papers.md")
	if !ok || !strings.Contains(file, `pattern: '^\S'`) {
		t.Fatalf("constraint file:\n%s", file)
	}
	block := file[strings.Index(file, "```yaml\n")+8 : strings.LastIndex(file, "```")]
	var strict map[string]any
	if err := yaml.Unmarshal([]byte(block), &strict); err != nil {
		t.Fatalf("the rewritten rules are not valid YAML: %v\n%s", err, block)
	}
	if _, err := e.svc.CreateNote(ctx, "ai-research", "papers/2026-anything.md", "---\ntitle: Short is fine now\n---\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.AddFolderConstraint(ctx, "ai-research", "research/ai/concepts", kb.Rules{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.read(t, ".llm_bridges/knowledge_base/ai-research/folder_constraints/research_ai_concepts.md"); !ok {
		t.Fatal("a new constraint gets the plugin's file name")
	}
	if got, _ := e.read(t, ".llm_bridges/knowledge_base/daily-notes/folder_constraints/journal_daily.md"); got != originalDaily {
		t.Fatal("another knowledge base's constraint was touched")
	}
	desc := "Daily journal"
	if _, _, err := e.svc.UpdateKnowledgeBase(ctx, "daily-notes", kb.KnowledgeBaseUpdate{Description: &desc}); err != nil {
		t.Fatal(err)
	}
	meta, _ := e.read(t, ".llm_bridges/knowledge_base/daily-notes/meta.md")
	if meta != "---\ncreate_time: \"2025-12-01T09:00:00.000Z\"\ndescription: \"Daily journal\"\nsubfolder: \"journal/daily\"\n---\n\nDaily entries with date-based naming." {
		t.Fatalf("meta.md:\n%s", meta)
	}
}
