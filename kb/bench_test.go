package kb_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/kb"
)

const benchRules = `{"frontmatter":{"required_fields":[{"name":"title","type":"string"},{"name":"date","type":"date","pattern":"^\\d{4}-\\d{2}-\\d{2}$"},
	{"name":"status","type":"string","allowed_values":["a","b"]},{"name":"tags","type":"array","pattern":"^[a-z]+$"}]},
	"filename":{"pattern":"^\\d{4}-[a-z0-9-]+\\.md$"},"content":{"min_length":10,"max_length":100000,"required_sections":["Summary","Details"]}}`

// benchNote is a 10 KB note that passes benchRules.
func benchNote() string {
	return "---\ntitle: T\ndate: 2025-12-10\nstatus: a\ntags: [x, y, z]\n---\n# Summary\n" + strings.Repeat("Some text. ", 900) + "\n## Details\nMore.\n"
}

// BenchmarkCreateNote measures a validated create through the vault's
// writer into memstore: metadata read, constraint read and check, atomic
// file write, store update.
func BenchmarkCreateNote(b *testing.B) {
	e := newEnv(b, nil)
	ctx := b.Context()
	if _, err := e.svc.AddKnowledgeBase(ctx, kb.NewKnowledgeBase{Name: "k", Subfolder: "notes"}); err != nil {
		b.Fatal(err)
	}
	rules, err := kb.ParseRules(json.RawMessage(benchRules))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := e.svc.AddFolderConstraint(ctx, "k", "notes", rules); err != nil {
		b.Fatal(err)
	}
	note := benchNote()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := e.svc.CreateNote(ctx, "k", fmt.Sprintf("2025-n%d.md", i), note); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateNote measures validate_note on a 10 KB note: read,
// constraint load, checks; nothing written.
func BenchmarkValidateNote(b *testing.B) {
	e := newEnv(b, map[string]string{"notes/2025-x.md": benchNote()})
	ctx := b.Context()
	if _, err := e.svc.AddKnowledgeBase(ctx, kb.NewKnowledgeBase{Name: "k", Subfolder: "notes"}); err != nil {
		b.Fatal(err)
	}
	rules, _ := kb.ParseRules(json.RawMessage(benchRules))
	if _, err := e.svc.AddFolderConstraint(ctx, "k", "notes", rules); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.svc.ValidateNote(ctx, "k", "2025-x.md")
		if err != nil || !res.Validation.Passed {
			b.Fatal(res, err)
		}
	}
}
