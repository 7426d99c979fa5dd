package vault

import (
	"path"
	"strings"
	"testing"
)

// FuzzCleanRelPath checks the lexical path checks every tool path goes
// through: any string is refused or comes back relative, "/"-separated and
// clean, with no "..", hidden, empty or over-long segment and no control
// character or backslash, so joining it to the vault root stays inside.
func FuzzCleanRelPath(f *testing.F) {
	for _, s := range []string{"", ".", "..", "a/b.md", "../x", "a/../../x", "/etc/passwd", `..\x`, "C:x", "a\x00b",
		"%2e%2e/x", "．．/x", "~/x", "a//b/./c.md", ".obsidian/x", strings.Repeat("a", 300), "concepts/BM25.md"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		clean, err := cleanRelPath(p)
		if err != nil {
			if clean != "" {
				t.Fatalf("refused %q but returned %q", p, clean)
			}
			return
		}
		if clean != "" && path.Clean(clean) != clean {
			t.Fatalf("%q cleaned to %q, which path.Clean changes", p, clean)
		}
		if strings.HasPrefix(clean, "/") || strings.ContainsAny(clean, "\\\x00") {
			t.Fatalf("%q cleaned to %q", p, clean)
		}
		for _, seg := range strings.Split(clean, "/") {
			if clean != "" && (seg == "" || seg == "." || seg == ".." || strings.HasPrefix(seg, ".") || len(seg) > maxSegment) {
				t.Fatalf("%q cleaned to %q with segment %q", p, clean, seg)
			}
		}
		if j := path.Join("/vault", clean); j != "/vault" && !strings.HasPrefix(j, "/vault/") {
			t.Fatalf("%q leaves the vault: %s", p, j)
		}
	})
}

// FuzzCleanTags checks the tag cleaning of create_node and update_node:
// any tags are refused or come back valid, without duplicates (ignoring
// letter case), without "#" or blanks.
func FuzzCleanTags(f *testing.F) {
	for _, s := range []string{"tag", "#tag", "two words", "a/b", "123", "", " ", "Ü-ber", "#", "a#b", "x\x00"} {
		f.Add(s, "TAG")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		tags, err := cleanTags([]string{a, b, a})
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, tag := range tags {
			if !validTag(tag) || strings.ContainsAny(tag, "# \t\n") {
				t.Fatalf("cleanTags(%q, %q) gave %q", a, b, tag)
			}
			if k := strings.ToLower(tag); seen[k] {
				t.Fatalf("cleanTags(%q, %q) gave %q twice", a, b, tag)
			}
			seen[strings.ToLower(tag)] = true
		}
	})
}
