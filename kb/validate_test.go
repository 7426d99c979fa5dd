package kb

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func mustCompile(t *testing.T, rules string) *compiled {
	t.Helper()
	r, err := ParseRules(json.RawMessage(rules))
	if err != nil {
		t.Fatal(err)
	}
	c, problems := compileRules(r)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	return c
}

// issueKeys renders issues as "field:error" for comparison.
func issueKeys(issues []Issue) string {
	var out []string
	for _, i := range issues {
		out = append(out, i.Field+":"+i.Error)
	}
	return strings.Join(out, ",")
}

func field(name, typ, extra string) string {
	return fmt.Sprintf(`{"frontmatter":{"required_fields":[{"name":%q,"type":%q%s}]}}`, name, typ, extra)
}

func TestValidationRules(t *testing.T) {
	cases := []struct {
		name, rules, file, content, want string
	}{
		// required fields and their types
		{"field present", field("title", "string", ""), "a.md", "---\ntitle: Hi\n---\nbody", ""},
		{"no frontmatter at all", field("title", "string", ""), "a.md", "body", "frontmatter.title:missing_required_field"},
		{"field missing", field("title", "string", ""), "a.md", "---\nother: 1\n---\n", "frontmatter.title:missing_required_field"},
		{"null counts as missing", field("title", "string", ""), "a.md", "---\ntitle:\n---\n", "frontmatter.title:missing_required_field"},
		{"empty string is present", field("title", "string", ""), "a.md", "---\ntitle: \"\"\n---\n", ""},
		{"string got number", field("title", "string", ""), "a.md", "---\ntitle: 42\n---\n", "frontmatter.title:invalid_field_type"},
		{"unquoted date is a string", field("title", "string", ""), "a.md", "---\ntitle: 2025-12-10\n---\n", ""},
		{"number", field("n", "number", ""), "a.md", "---\nn: 1.5\n---\n", ""},
		{"number got string", field("n", "number", ""), "a.md", "---\nn: \"1\"\n---\n", "frontmatter.n:invalid_field_type"},
		{"boolean", field("b", "boolean", ""), "a.md", "---\nb: false\n---\n", ""},
		{"boolean got yes", field("b", "boolean", ""), "a.md", "---\nb: yes\n---\n", "frontmatter.b:invalid_field_type"},
		{"date unquoted", field("d", "date", ""), "a.md", "---\nd: 2025-12-10\n---\n", ""},
		{"date quoted", field("d", "date", ""), "a.md", "---\nd: \"2025-12-10T14:30:00Z\"\n---\n", ""},
		{"date with time and blank", field("d", "date", ""), "a.md", "---\nd: 2025-12-10 14:30\n---\n", ""},
		{"impossible date", field("d", "date", ""), "a.md", "---\nd: \"2025-13-45\"\n---\n", "frontmatter.d:invalid_field_type"},
		{"date got text", field("d", "date", ""), "a.md", "---\nd: tomorrow\n---\n", "frontmatter.d:invalid_field_type"},
		{"array", field("tags", "array", ""), "a.md", "---\ntags: [a, b]\n---\n", ""},
		{"array got string", field("tags", "array", ""), "a.md", "---\ntags: a\n---\n", "frontmatter.tags:invalid_field_type"},
		// pattern
		{"pattern match", field("id", "string", `,"pattern":"^[A-Z]{3}-\\d+$"`), "a.md", "---\nid: ABC-12\n---\n", ""},
		{"pattern mismatch", field("id", "string", `,"pattern":"^[A-Z]{3}-\\d+$"`), "a.md", "---\nid: abc\n---\n", "frontmatter.id:pattern_mismatch"},
		{"pattern on a date as written", field("d", "date", `,"pattern":"^\\d{4}-\\d{2}-\\d{2}$"`), "a.md", "---\nd: 2025-12-10T10:00:00Z\n---\n", "frontmatter.d:pattern_mismatch"},
		{"pattern on every array item", field("tags", "array", `,"pattern":"^[a-z]+$"`), "a.md", "---\ntags: [ok, Bad, fine]\n---\n", "frontmatter.tags[1]:pattern_mismatch"},
		{"pattern on a number's text", field("n", "number", `,"pattern":"^\\d{4}$"`), "a.md", "---\nn: 123\n---\n", "frontmatter.n:pattern_mismatch"},
		// allowed values
		{"allowed", field("status", "string", `,"allowed_values":["reading","read"]`), "a.md", "---\nstatus: read\n---\n", ""},
		{"not allowed", field("status", "string", `,"allowed_values":["reading","read"]`), "a.md", "---\nstatus: pending\n---\n", "frontmatter.status:invalid_value"},
		{"allowed is case-sensitive", field("status", "string", `,"allowed_values":["read"]`), "a.md", "---\nstatus: Read\n---\n", "frontmatter.status:invalid_value"},
		{"allowed numbers compare by value", field("n", "number", `,"allowed_values":[1,2]`), "a.md", "---\nn: 2.0\n---\n", ""},
		{"allowed booleans", field("b", "boolean", `,"allowed_values":[true]`), "a.md", "---\nb: false\n---\n", "frontmatter.b:invalid_value"},
		{"allowed on every array item", field("tags", "array", `,"allowed_values":["a","b"]`), "a.md", "---\ntags: [a, c]\n---\n", "frontmatter.tags[1]:invalid_value"},
		{"wrong type skips value checks", field("status", "string", `,"allowed_values":["x"]`), "a.md", "---\nstatus: [x]\n---\n", "frontmatter.status:invalid_field_type"},
		// frontmatter that is not YAML
		{"invalid frontmatter", field("title", "string", ""), "a.md", "---\ntitle: \"^\\d\"\n---\n", "frontmatter:invalid_frontmatter"},
		{"frontmatter not a mapping", field("title", "string", ""), "a.md", "---\n- a\n---\n", "frontmatter:invalid_frontmatter"},
		{"unclosed frontmatter is body", field("title", "string", ""), "a.md", "---\ntitle: x\n", "frontmatter.title:missing_required_field"},
		{"BOM and CRLF", field("title", "string", ""), "a.md", "\ufeff---\r\ntitle: x\r\n---\r\nbody", ""},
		// filename
		{"filename match", `{"filename":{"pattern":"^\\d{4}-\\d{2}-\\d{2}-[a-z0-9-]+\\.md$"}}`, "2025-12-10-transformers.md", "x", ""},
		{"filename mismatch", `{"filename":{"pattern":"^\\d{4}-\\d{2}-\\d{2}-[a-z0-9-]+\\.md$"}}`, "transformers.md", "x", "filename:pattern_mismatch"},
		// content lengths count characters of the body only
		{"min length met", `{"content":{"min_length":5}}`, "a.md", "---\ntitle: a long frontmatter\n---\nnoté!", ""},
		{"min length counts the body only", `{"content":{"min_length":6}}`, "a.md", "---\ntitle: a long frontmatter\n---\nnoté!", "content:content_too_short"},
		{"max length counts characters not bytes", `{"content":{"max_length":6}}`, "a.md", "ノートです!", ""},
		{"max length exceeded", `{"content":{"max_length":5}}`, "a.md", "ノートです!", "content:content_too_long"},
		{"CRLF counts as one character", `{"content":{"max_length":3}}`, "a.md", "a\r\nb", ""},
		// sections
		{"section at any level", `{"content":{"required_sections":["Summary"]}}`, "a.md", "# T\n\n### Summary\n", ""},
		{"section ignores case and #s in the rule", `{"content":{"required_sections":["## Key Points"]}}`, "a.md", "# key   points #\n", ""},
		{"section written as setext", `{"content":{"required_sections":["Summary"]}}`, "a.md", "Summary\n=======\n", ""},
		{"section inside code is no heading", `{"content":{"required_sections":["Summary"]}}`, "a.md", "```md\n# Summary\n```\n", "content.sections:missing_section"},
		{"a tag is no heading", `{"content":{"required_sections":["Summary"]}}`, "a.md", "#Summary\n", "content.sections:missing_section"},
		{"section text must match whole", `{"content":{"required_sections":["Summary"]}}`, "a.md", "## Summary of it\n", "content.sections:missing_section"},
		{"section in frontmatter does not count", `{"content":{"required_sections":["Summary"]}}`, "a.md", "---\n# Summary\n---\nbody", "content.sections:missing_section"},
		// several at once, in rule order
		{"every issue is reported",
			`{"frontmatter":{"required_fields":[{"name":"a","type":"string"},{"name":"b","type":"number"}]},"filename":{"pattern":"^x"},"content":{"min_length":100,"required_sections":["S"]}}`,
			"y.md", "---\nb: nope\n---\nshort",
			"frontmatter.a:missing_required_field,frontmatter.b:invalid_field_type,filename:pattern_mismatch,content:content_too_short,content.sections:missing_section"},
		{"empty rules pass everything", `{}`, "whatever.txt.md", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := issueKeys(mustCompile(t, c.rules).check(c.file, c.content))
			if got != c.want {
				t.Fatalf("issues = %q, want %q", got, c.want)
			}
		})
	}
}

func TestIssuesNameExpectedAndActual(t *testing.T) {
	c := mustCompile(t, `{"frontmatter":{"required_fields":[
		{"name":"status","type":"string","allowed_values":["reading","read","summarized"]},
		{"name":"title","type":"string"}]},
		"filename":{"pattern":"^\\d{4}-\\d{2}-\\d{2}-[a-z0-9-]+\\.md$"},
		"content":{"max_length":3,"required_sections":["Summary"]}}`)
	issues := c.check("transformers.md", "---\nstatus: pending\n---\n# Intro\nbody")
	raw, _ := json.Marshal(issues)
	want := `[` +
		`{"field":"frontmatter.status","error":"invalid_value","expected":["reading","read","summarized"],"actual":"pending","message":"frontmatter.status is \"pending\"; allowed: [\"reading\",\"read\",\"summarized\"]"},` +
		`{"field":"frontmatter.title","error":"missing_required_field","expected":"string","actual":null,"message":"required field \"title\" (string) is missing"},` +
		`{"field":"filename","error":"pattern_mismatch","expected":"^\\d{4}-\\d{2}-\\d{2}-[a-z0-9-]+\\.md$","actual":"transformers.md","pattern":"^\\d{4}-\\d{2}-\\d{2}-[a-z0-9-]+\\.md$","message":"file name \"transformers.md\" does not match the pattern ^\\d{4}-\\d{2}-\\d{2}-[a-z0-9-]+\\.md$"},` +
		`{"field":"content","error":"content_too_long","expected":3,"actual":12,"message":"the body (without frontmatter) has 12 characters; at most 3 are allowed"},` +
		`{"field":"content.sections","error":"missing_section","expected":"Summary","actual":["Intro"],"message":"no heading \"Summary\" (any level, any letter case) was found"}]`
	if string(raw) != want {
		t.Fatalf("got\n%s\nwant\n%s", raw, want)
	}
}
