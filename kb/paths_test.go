package kb

import (
	"errors"
	"strings"
	"testing"
)

func codeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func TestCleanRel(t *testing.T) {
	cases := []struct {
		in, want, refused string // refused: part of the message when invalid
	}{
		{in: "papers/a.md", want: "papers/a.md"},
		{in: "./papers//a.md/", want: "papers/a.md"},
		{in: "", want: ""},
		{in: ".", want: ""},
		{in: "résumé/ノート.md", want: "résumé/ノート.md"},
		{in: "../secrets/key.md", refused: `".." may not appear`},
		{in: "a/../../b.md", refused: `".." may not appear`},
		{in: "a/..", refused: `".." may not appear`},
		{in: "/etc/passwd", refused: "absolute"},
		{in: "C:/Windows/x.md", refused: "absolute"},
		{in: `a\..\b.md`, refused: `not "\"`},
		{in: "a\x00b.md", refused: "control character"},
		{in: "a\nb.md", refused: "control character"},
		{in: ".llm_bridges/knowledge_base/x/meta.md", refused: "starts with a dot"},
		{in: "a/.obsidian/b.md", refused: "starts with a dot"},
		{in: strings.Repeat("x", 256) + ".md", refused: "longer than 255"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := cleanRel("note_path", c.in)
			if c.refused != "" {
				if codeOf(err) != CodeInvalidNotePath || !strings.Contains(err.Error(), c.refused) {
					t.Fatalf("err = %v, want invalid_note_path mentioning %q", err, c.refused)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestWithinComparesWholeSegments(t *testing.T) {
	cases := []struct {
		p, dir string
		want   bool
	}{
		{"notes/a", "notes", true},
		{"notes", "notes", true},
		{"notesX/a", "notes", false},
		{"notesX", "notes", false},
		{"note", "notes", false},
		{"Notes/A", "notes", true}, // one folder on case-insensitive file systems
		{"anything/at/all", "", true},
		{"", "notes", false},
	}
	for _, c := range cases {
		if got := within(c.p, c.dir); got != c.want {
			t.Errorf("within(%q, %q) = %v, want %v", c.p, c.dir, got, c.want)
		}
	}
	if !overlaps("research", "research/ai") || !overlaps("research/ai", "research") || overlaps("research", "researchers") || !overlaps("", "x") {
		t.Fatal("overlaps must be within in either direction, by segment")
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"ai-research", "Daily Notes", "研究", "a.b"} {
		if err := checkName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", " ", "a/b", `a\b`, "..", ".hidden", "x.", " lead", "a:b", "a\x00", "metadata.json", strings.Repeat("n", 256)} {
		if err := checkName(bad); codeOf(err) != CodeSchemaValidationFailed {
			t.Errorf("%q: err = %v, want schema_validation_failed", bad, err)
		}
	}
}
