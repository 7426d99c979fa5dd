package kb

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// sampleRules exercise every part of the rules format.
const sampleRules = `{
	"frontmatter":{"required_fields":[
		{"name":"title","type":"string"},
		{"name":"published_date","type":"date","pattern":"^\\d{4}-\\d{2}-\\d{2}$"},
		{"name":"status","type":"string","allowed_values":["reading","read","summarized"]},
		{"name":"rating","type":"number","allowed_values":[1,2,3.5]},
		{"name":"done","type":"boolean","allowed_values":[true]},
		{"name":"tags","type":"array","pattern":"^[a-z'\"]+$"}]},
	"filename":{"pattern":"^\\d{4}-\\d{2}-\\d{2}-[a-z0-9-]+\\.md$"},
	"content":{"min_length":10,"max_length":5000,"required_sections":["Summary","## Key Points"]}}`

func TestConstraintFilesRoundTrip(t *testing.T) {
	rules, err := ParseRules(json.RawMessage(sampleRules))
	if err != nil {
		t.Fatal(err)
	}
	c := Constraint{KBName: "ai", Subfolder: "research/ai/papers", Rules: rules}
	raw := encodeConstraint(c)
	got, err := decodeConstraint("ai", "research_ai_papers.md", raw)
	if err != nil || got.err != nil {
		t.Fatalf("decode: %v / %v\n%s", err, got.err, raw)
	}
	if !reflect.DeepEqual(got.Constraint, c) {
		t.Fatalf("round trip changed the constraint:\n%#v\n%#v", got.Constraint, c)
	}
	// Valid YAML all through: a strict parser reads the block.
	if _, err := decodeYAML(yamlBlock(splitDocument(string(raw)).body)); err != nil {
		t.Fatalf("the rules block is not strict YAML: %v\n%s", err, raw)
	}
}

func TestThePluginReadsTheConstraintFilesWeWrite(t *testing.T) {
	rules, err := ParseRules(json.RawMessage(sampleRules))
	if err != nil {
		t.Fatal(err)
	}
	raw := string(encodeConstraint(Constraint{KBName: "ai", Subfolder: "research/ai/papers", Rules: rules}))
	doc := splitDocument(raw)
	if sub := pluginSimpleYAML(doc.frontmatter)["subfolder"]; sub != "research/ai/papers" {
		t.Fatalf("plugin reads subfolder %q", sub)
	}
	got := pluginParseRules(yamlBlock(doc.body))
	// The plugin cannot read back a quote inside a single-quoted pattern
	// (it does not undouble ''); everything else must survive.
	want := rules
	want.Frontmatter = &FrontmatterRules{RequiredFields: append([]FieldRule(nil), rules.Frontmatter.RequiredFields...)}
	want.Frontmatter.RequiredFields[5].Pattern = `^[a-z''"]+$`
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("the plugin reads\n%s\nwant\n%s\nfile:\n%s", g, w, raw)
	}
}

func TestDecodeConstraintKeepsUnusableRulesAsAnError(t *testing.T) {
	file := "---\nsubfolder: \"notes/x\"\n---\n\n```yaml\nfilename:\n  pattern: '(unclosed'\n```\n"
	cf, err := decodeConstraint("kb", "x.md", []byte(file))
	if err != nil || cf.err == nil || !strings.Contains(cf.err.Error(), "not a valid regular expression") {
		t.Fatalf("cf = %+v, err = %v", cf, err)
	}
	if _, err := decodeConstraint("kb", "y.md", []byte("no frontmatter")); err == nil {
		t.Fatal("a file without a subfolder cannot apply anywhere")
	}
	if cf, err := decodeConstraint("kb", "z.md", []byte("---\nsubfolder: /notes/z/\n---\nno rules block")); err != nil || cf.Subfolder != "notes/z" || cf.compiled == nil {
		t.Fatalf("no block means no rules, slashes trimmed as the plugin does: %+v, %v", cf, err)
	}
}

func TestConstraintFileNames(t *testing.T) {
	for in, want := range map[string]string{
		"research/ai/papers": "research_ai_papers.md",
		"notes/2025 daily":   "notes_2025daily.md",
		"":                   "constraint-" + shortHash("") + ".md",
		"ノート":                "constraint-" + shortHash("ノート") + ".md",
		"ノート/メモ":             "constraint-" + shortHash("ノート/メモ") + ".md",
		"con":                "constraint-" + shortHash("con") + ".md", // con.md: Windows reserves it
		"Aux/x":              "Aux_x.md",
	} {
		if got := constraintFileName(in); got != want {
			t.Errorf("constraintFileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMetaRoundTripAndPluginReading(t *testing.T) {
	kb := &KnowledgeBase{Name: "ai", CreateTime: "2025-12-10T14:30:00Z", Description: `Papers "and" C:\notes`, Subfolder: "research/ai",
		OrganizationRules: "## Guidelines\n  1. One concept per note\n"}
	raw := encodeMeta(kb)
	got, err := decodeMeta("ai", raw)
	if err != nil {
		t.Fatal(err)
	}
	want := *kb
	want.OrganizationRules = "## Guidelines\n  1. One concept per note" // trailing blanks are not kept
	if *got != want {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	fm := pluginSimpleYAML(splitDocument(string(raw)).frontmatter)
	if fm["subfolder"] != "research/ai" || fm["create_time"] != kb.CreateTime || fm["description"] != kb.Description {
		t.Fatalf("the plugin reads %v", fm)
	}
}

func TestDecodeMetaIsLenient(t *testing.T) {
	// As the plugin writes it: a description with a raw backslash.
	raw := "---\ncreate_time: \"2025-12-10T14:30:00.000Z\"\ndescription: \"C:\\drive and \\d\"\nsubfolder: \"/journal/daily/\"\n---\n\nRules here\n"
	kb, err := decodeMeta("daily", []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if kb.Description != `C:\drive and \d` || kb.Subfolder != "journal/daily" || kb.OrganizationRules != "Rules here" || kb.CreateTime != "2025-12-10T14:30:00.000Z" {
		t.Fatalf("%+v", kb)
	}
	for _, bad := range []string{"no frontmatter", "---\ndescription: x\n---\n", "---\nsubfolder: ../up\n---\n"} {
		if _, err := decodeMeta("x", []byte(bad)); err == nil {
			t.Errorf("%q must be unreadable", bad)
		}
	}
}
