package cypher

import (
	"regexp"
	"strings"
	"testing"
)

func TestEveryStatementIsNonEmptyFixedText(t *testing.T) {
	names := Names()
	if len(names) == 0 {
		t.Fatal("no statements embedded")
	}
	// Markers of text meant for fmt or text/template: a statement carrying
	// one invites splicing values in instead of passing parameters.
	splicing := regexp.MustCompile(`%[-+# 0-9.]*[sdvqxf]|\{\{`)
	for _, name := range names {
		text, ok := Get(name)
		if !ok {
			t.Fatalf("Names lists %q but Get does not find it", name)
		}
		body := withoutComments(text)
		if strings.TrimSpace(body) == "" {
			t.Errorf("%s.cypher has no statement", name)
		}
		if strings.Contains(body, ";") {
			t.Errorf("%s.cypher must hold exactly one statement (found ';')", name)
		}
		if m := splicing.FindString(body); m != "" {
			t.Errorf("%s.cypher contains %q, which looks like a splice point; use a $parameter", name, m)
		}
	}
}

func TestGetUnknownNameFails(t *testing.T) {
	if _, ok := Get("no_such_statement"); ok {
		t.Fatal("Get found a statement that does not exist")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("MustGet did not panic on an unknown name")
		}
	}()
	MustGet("no_such_statement")
}

// withoutComments drops "//" line comments, which may mention anything.
func withoutComments(text string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i] + "\n"
		}
		b.WriteString(line)
	}
	return b.String()
}
