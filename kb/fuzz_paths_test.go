package kb

import (
	"path"
	"strings"
	"testing"
)

// FuzzCleanRel checks the note_path and subfolder checks of the
// knowledge-base tools: any string is refused with invalid_note_path or
// comes back relative, clean and without "..", hidden or over-long
// segments, so it stays inside its knowledge base's folder.
func FuzzCleanRel(f *testing.F) {
	for _, s := range []string{"", "a.md", "papers/x.md", "../x.md", "a/../../x", "/abs.md", `a\b.md`, "C:x.md", "a\x00.md",
		".llm_bridges/kb.json", "%2e%2e/x.md", "．．/x.md", strings.Repeat("n/", 50) + "x.md", strings.Repeat("a", 256)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		clean, err := cleanRel("note_path", p)
		if err != nil {
			if !strings.Contains(err.Error(), "not allowed") {
				t.Fatalf("refusal of %q: %v", p, err)
			}
			return
		}
		if clean != "" && path.Clean(clean) != clean {
			t.Fatalf("%q cleaned to %q, which path.Clean changes", p, clean)
		}
		for _, seg := range strings.Split(clean, "/") {
			if clean != "" && (seg == "" || seg == ".." || strings.HasPrefix(seg, ".") || len(seg) > maxSegment || strings.ContainsAny(seg, "\\\x00")) {
				t.Fatalf("%q cleaned to %q with segment %q", p, clean, seg)
			}
		}
		if j := path.Join("/vault/kb", clean); j != "/vault/kb" && !strings.HasPrefix(j, "/vault/kb/") {
			t.Fatalf("%q leaves the knowledge base: %s", p, j)
		}
	})
}
