package chunk

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// checkPieces holds every chunker to the rules that hold for any input.
func checkPieces(t *testing.T, in string, ps []Piece) {
	t.Helper()
	for i, p := range ps {
		if !utf8.ValidString(p.Content) {
			t.Fatalf("piece %d is not valid UTF-8", i)
		}
		if n := utf8.RuneCountInString(p.Content); n > MaxChars {
			t.Fatalf("piece %d has %d characters", i, n)
		}
		if strings.TrimSpace(p.Content) == "" {
			t.Fatalf("piece %d is blank", i)
		}
	}
	if strings.TrimSpace(in) != "" && len(ps) == 0 {
		t.Fatalf("text %q gave no piece", in)
	}
}

func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{"# A\nb", "intro\n## B\n```\n# x\n```", "---\na: 1\n---\n# T", strings.Repeat("word. ", 500)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkPieces(t, stripFrontmatter(text([]byte(s))), Markdown(text([]byte(s))))
	})
}

func FuzzText(f *testing.F) {
	f.Add("a\n\nb")
	f.Add(strings.Repeat("x", 3000))
	f.Fuzz(func(t *testing.T, s string) { checkPieces(t, s, Text(text([]byte(s)))) })
}

func FuzzPython(f *testing.F) {
	f.Add("import os\n@d\ndef f():\n    '''x\n'''\nclass C: pass\n")
	f.Add("x = (\n1)\\\n")
	f.Fuzz(func(t *testing.T, s string) {
		ps := Python(text([]byte(s)))
		for i, p := range ps {
			if n := utf8.RuneCountInString(p.Content); n > MaxChars {
				t.Fatalf("piece %d has %d characters", i, n)
			}
		}
	})
}

func FuzzPDF(f *testing.F) {
	f.Add(makePDF(fixturePages))
	f.Add([]byte("%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := PDF(data) // never panics
		if err == nil {
			for _, p := range ps {
				if p.Page < 1 {
					t.Fatalf("page %d", p.Page)
				}
			}
		}
	})
}
