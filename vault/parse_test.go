package vault

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

func TestFrontmatterSplit(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		fm      map[string]any
		content string
	}{
		{"plain", "---\ntitle: A\n---\nbody\n", map[string]any{"title": "A"}, "body\n"},
		{"utf8 BOM", "\ufeff---\ntitle: A\n---\nbody", map[string]any{"title": "A"}, "body"},
		{"CRLF line endings", "---\r\ntitle: A\r\n---\r\nbody\r\nmore\r\n", map[string]any{"title": "A"}, "body\nmore\n"},
		{"closing dots", "---\na: 1\n...\nbody", map[string]any{"a": 1}, "body"},
		{"trailing blanks on fences", "--- \na: 1\n---\t\nbody", map[string]any{"a": 1}, "body"},
		{"unclosed block is body", "---\ntitle: A\nbody", nil, "---\ntitle: A\nbody"},
		{"not at the very top", "\n---\na: 1\n---\nbody", nil, "\n---\na: 1\n---\nbody"},
		{"empty block", "---\n---\nbody", nil, "body"},
		{"block at end of file", "---\na: 1\n---", map[string]any{"a": 1}, ""},
		{"thematic break later is body", "text\n---\nmore", nil, "text\n---\nmore"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, warnings := Parse("x.md", []byte(tc.raw))
			assert.Empty(t, warnings)
			assert.Equal(t, tc.fm, n.Frontmatter)
			assert.Equal(t, tc.content, n.Content)
		})
	}
}

func TestFrontmatterSalvage(t *testing.T) {
	tests := []struct {
		name     string
		raw      string
		fm       map[string]any
		warnings []string
	}{
		{
			name: "handle in a list",
			raw:  "---\ntitle: Talk\nspeakers:\n  - @ada\n  - \"@grace\"\ntags: [talk]\n---\nbody #inline",
			fm: map[string]any{
				"title": "Talk", "speakers": []any{"@ada", "@grace"}, "tags": []any{"talk"},
			},
			warnings: []string{"notes/x.md:4: frontmatter: found character that cannot start any token"},
		},
		{
			name:     "regex with backslash in double quotes",
			raw:      "---\nid: 7\npattern: \"\\d+\"\n---\nbody",
			fm:       map[string]any{"id": 7, "pattern": `\d+`},
			warnings: []string{"notes/x.md:3: frontmatter: found unknown escape character"},
		},
		{
			name:     "flow list with a handle",
			raw:      "---\nauthors: [@a, b]\n---\n",
			fm:       map[string]any{"authors": []any{"@a", "b"}},
			warnings: []string{"notes/x.md:2: frontmatter: found character that cannot start any token"},
		},
		{
			name:     "duplicate key reports the document error",
			raw:      "---\na: 1\na: 2\n---\n",
			fm:       map[string]any{"a": 2},
			warnings: []string{"notes/x.md:3: frontmatter: mapping key \"a\" already defined at line 1"},
		},
		{
			name:     "not a mapping",
			raw:      "---\n- a\n- b\n---\nbody",
			fm:       nil,
			warnings: []string{"notes/x.md:2: frontmatter: not a mapping of keys to values"},
		},
		{
			name:     "tab indentation",
			raw:      "---\nok: yes\nnested:\n\tchild: 1\n---\n",
			fm:       map[string]any{"ok": "yes"},
			warnings: []string{"notes/x.md:4: frontmatter: found character that cannot start any token"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, warnings := Parse("notes/x.md", []byte(tc.raw))
			require.Len(t, warnings, len(tc.warnings), "%q", warnings)
			for i := range warnings {
				assert.True(t, strings.HasPrefix(warnings[i], tc.warnings[i]), "warning %q, want prefix %q", warnings[i], tc.warnings[i])
			}
			assert.Equal(t, tc.fm, n.Frontmatter)
		})
	}
}

func TestBadFrontmatterStillIndexesBody(t *testing.T) {
	n, warnings := Parse("x.md", []byte("---\nowner: @me\n---\nSee [[Other]] #tag\n"))
	require.Len(t, warnings, 1)
	assert.Equal(t, []string{"tag"}, n.Tags)
	require.Len(t, n.Links, 1)
	assert.Equal(t, "other", n.Links[0].Key)
	assert.Equal(t, map[string]any{"owner": "@me"}, n.Frontmatter)
}

func TestTitle(t *testing.T) {
	tests := []struct{ path, raw, title string }{
		{"notes/ML Basics.md", "body", "ML Basics"},
		{"notes/ml.md", "---\ntitle: Machine Learning\n---\n", "Machine Learning"},
		{"notes/ml.md", "---\ntitle: \"  \"\n---\n", "ml"},
		{"notes/ml.md", "---\ntitle: 2024\n---\n", "ml"},
		{"v1.2 release.MD", "", "v1.2 release"},
	}
	for _, tc := range tests {
		n, _ := Parse(tc.path, []byte(tc.raw))
		assert.Equal(t, tc.title, n.Title, tc.path)
	}
}

func TestIdentity(t *testing.T) {
	n, _ := Parse("Notes/ML-Basics.md", []byte("x"))
	assert.Equal(t, "notes/ml-basics.md", n.ID)
	assert.Equal(t, "Notes/ML-Basics.md", n.Path)
	assert.Equal(t, []string{"notes/ml-basics", "ml-basics"}, n.Keys)
	assert.Equal(t, "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881", n.Hash)
	assert.Equal(t, []string{"a/b/c", "b/c", "c"}, NoteKeys("a/b/c.md"))
	assert.Equal(t, []string{"c"}, NoteKeys("C.md"))
}

func TestAssignIDs(t *testing.T) {
	tests := []struct {
		name  string
		group []string
		want  map[string]string
	}{
		{"single", []string{"Notes/A.md"}, map[string]string{"Notes/A.md": "notes/a.md"}},
		{"lowercase twin owns the lowercase id", []string{"Notes/A.md", "notes/a.md"},
			map[string]string{"Notes/A.md": "Notes/A.md", "notes/a.md": "notes/a.md"}},
		{"else first in byte order", []string{"notes/A.md", "Notes/a.md"},
			map[string]string{"Notes/a.md": "notes/a.md", "notes/A.md": "notes/A.md"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, assignIDs(tc.group))
		})
	}
}

func TestTags(t *testing.T) {
	tests := []struct {
		name     string
		raw      string
		tags     []string
		warnings []string
	}{
		{"frontmatter list", "---\ntags: [a, '#b', c/d]\n---\n", []string{"a", "b", "c/d"}, nil},
		{"frontmatter block list", "---\ntags:\n  - a\n  - b\n---\n", []string{"a", "b"}, nil},
		{"frontmatter string with commas and blanks", "---\ntags: \"#a, b c\"\n---\n", []string{"a", "b", "c"}, nil},
		{"legacy tag key", "---\ntag: solo\n---\n", []string{"solo"}, nil},
		{"frontmatter number is not a tag", "---\ntags: [2024, y2024]\n---\n", []string{"y2024"},
			[]string{"x.md: frontmatter: invalid tag ignored: 2024"}},
		{"inline tags", "text #one and #two/nested, #three.\n", []string{"one", "two/nested", "three"}, nil},
		{"unicode letters", "#café #日本語 #naïve_1\n", []string{"café", "日本語", "naïve_1"}, nil},
		{"tag at line start", "#start of line\n", []string{"start"}, nil},
		{"heading marker is not a tag", "# Heading\n## Sub #real\n", []string{"real"}, nil},
		{"pure number is not a tag", "issue #123 and #1a\n", []string{"1a"}, nil},
		{"url fragment is not a tag", "see http://x.org/#frag and a#b\n", nil, nil},
		{"escaped hash", `\#not`, nil, nil},
		{"inline code", "use `#not` here #yes\n", []string{"yes"}, nil},
		{"fenced code", "```\n#not\n```\n#yes\n", []string{"yes"}, nil},
		{"indented code", "para\n\n    #not\n\n#yes\n", []string{"yes"}, nil},
		{"comment", "%% #not %% <!-- #not --> #yes\n", []string{"yes"}, nil},
		{"inside a wikilink", "[[note#heading]] [[a| #not]] #yes\n", []string{"yes"}, nil},
		{"trailing slash trimmed", "#a/b/ end\n", []string{"a/b"}, nil},
		{"duplicate in frontmatter warns", "---\ntags: [ml, ML]\n---\n", []string{"ml"},
			[]string{"Duplicate tag ignored: ML"}},
		{"differently spelled inline duplicate warns", "#ml then #ML\n", []string{"ml"},
			[]string{"Duplicate tag ignored: ML"}},
		{"repeated inline tag is silent", "#ml then #ml\n", []string{"ml"}, nil},
		{"frontmatter tag repeated inline is silent", "---\ntags: [index]\n---\n#index\n", []string{"index"}, nil},
		{"frontmatter spelling wins", "---\ntags: [Tutorial]\n---\n#tutorial\n", []string{"Tutorial"},
			[]string{"Duplicate tag ignored: tutorial"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, warnings := Parse("x.md", []byte(tc.raw))
			want := tc.tags
			if want == nil {
				want = []string{}
			}
			assert.Equal(t, want, n.Tags)
			assert.Equal(t, tc.warnings, warnings)
		})
	}
}

func TestLinks(t *testing.T) {
	type L = core.Link
	tests := []struct {
		name  string
		path  string
		raw   string
		links []L
	}{
		{"plain", "x.md", "[[Target]]", []L{{Raw: "[[Target]]", Key: "target"}}},
		{"alias", "x.md", "[[Target|shown]]", []L{{Raw: "[[Target|shown]]", Key: "target", Alias: "shown"}}},
		{"heading", "x.md", "[[Target#Part one]]", []L{{Raw: "[[Target#Part one]]", Key: "target", Heading: "Part one"}}},
		{"block ref keeps caret", "x.md", "[[Target#^abc123|see]]",
			[]L{{Raw: "[[Target#^abc123|see]]", Key: "target", Heading: "^abc123", Alias: "see"}}},
		{"embed", "x.md", "![[Target]]", []L{{Raw: "![[Target]]", Key: "target", Embed: true}}},
		{"folder path", "x.md", "[[Folder/Sub/Target]]", []L{{Raw: "[[Folder/Sub/Target]]", Key: "folder/sub/target"}}},
		{"md extension and leading slash", "x.md", "[[/notes/T.md]] [[./T]]",
			[]L{{Raw: "[[/notes/T.md]]", Key: "notes/t"}, {Raw: "[[./T]]", Key: "t"}}},
		{"relative wikilinks join the note's folder", "a/x.md", "[[./Sib]] [[../B/Dup]] ![[./sub/E.md]]",
			[]L{{Raw: "[[./Sib]]", Key: "a/sib"}, {Raw: "[[../B/Dup]]", Key: "b/dup"}, {Raw: "![[./sub/E.md]]", Key: "a/sub/e", Embed: true}}},
		{"relative above the root names no note", "x.md", "[[../Out]] [[./]] [[..]]",
			[]L{{Raw: "[[../Out]]", Key: "../out"}}},
		{"backslash is not a separator", "x.md", `[[a\b]]`, []L{{Raw: `[[a\b]]`, Key: `a\b`}}},
		{"escaped pipe in a table", "x.md", `| [[Target\|alias]] |`,
			[]L{{Raw: `[[Target\|alias]]`, Key: "target", Alias: "alias"}}},
		{"blanks trimmed", "x.md", "[[ Target | a ]]", []L{{Raw: "[[ Target | a ]]", Key: "target", Alias: "a"}}},
		{"dotted note name", "x.md", "[[v1.2 release]]", []L{{Raw: "[[v1.2 release]]", Key: "v1.2 release"}}},
		{"self heading is not a link", "x.md", "[[#Heading]] [[#^blk]] [[]]", nil},
		{"attachments and canvases are links with their extension", "x.md", "![[image.PNG]] [[doc.pdf#page=2]] ![[board.canvas]]",
			[]L{{Raw: "![[image.PNG]]", Key: "image.png", Embed: true}, {Raw: "[[doc.pdf#page=2]]", Key: "doc.pdf", Heading: "page=2"}, {Raw: "![[board.canvas]]", Key: "board.canvas", Embed: true}}},
		{"no newline inside", "x.md", "[[a\nb]]", nil},
		{"innermost opener", "x.md", "[[a [[b]]", []L{{Raw: "[[b]]", Key: "b"}}},
		{"inline code", "x.md", "`[[no]]` ``[[no]] ` ``", nil},
		{"fenced code", "x.md", "~~~\n[[no]]\n~~~\n[[yes]]", []L{{Raw: "[[yes]]", Key: "yes"}}},
		{"unclosed fence runs to the end", "x.md", "```go\n[[no]]\n", nil},
		{"fence in a callout", "x.md", "> ```\n> [[no]]\n> ```\n> [[yes]]", []L{{Raw: "[[yes]]", Key: "yes"}}},
		{"indented code", "x.md", "text\n\n    [[no]]\n", nil},
		{"indented list item is not code", "x.md", "- a\n\n    - [[yes]]\n", []L{{Raw: "[[yes]]", Key: "yes"}}},
		{"paragraph continuation is not code", "x.md", "text\n    [[yes]]\n", []L{{Raw: "[[yes]]", Key: "yes"}}},
		{"percent comment", "x.md", "%% [[no]] %% [[yes]] %%\n[[no]]\n%%", []L{{Raw: "[[yes]]", Key: "yes"}}},
		{"html comment", "x.md", "<!-- [[no]]\n[[no]] --> [[yes]]", []L{{Raw: "[[yes]]", Key: "yes"}}},
		{"markdown link by path (not relative)", "notes/x.md", "[Text](sub/Other%20Note.md#Some%20Part)",
			[]L{{Raw: "[Text](sub/Other%20Note.md#Some%20Part)", Key: "sub/other note", Alias: "Text", Heading: "Some Part"}}},
		{"markdown link relative with ./", "notes/x.md", "[Text](./sub/Other%20Note.md)",
			[]L{{Raw: "[Text](./sub/Other%20Note.md)", Key: "notes/sub/other note", Alias: "Text"}}},
		{"markdown link without .md", "notes/x.md", "[k](Folder/Note%20Name) [z](Sib)",
			[]L{{Raw: "[k](Folder/Note%20Name)", Key: "folder/note name", Alias: "k"}, {Raw: "[z](Sib)", Key: "sib", Alias: "z"}}},
		{"markdown link angle with heading", "x.md", "[y](<Folder/Note Name.md#Heading>)",
			[]L{{Raw: "[y](<Folder/Note Name.md#Heading>)", Key: "folder/note name", Alias: "y", Heading: "Heading"}}},
		{"markdown link block and title", "x.md", `[x](a.md#^blk "t") [w](Only.md 'title')`,
			[]L{{Raw: `[x](a.md#^blk "t")`, Key: "a", Alias: "x", Heading: "^blk"}, {Raw: `[w](Only.md 'title')`, Key: "only", Alias: "w"}}},
		{"markdown link in code is not a link", "x.md", "`[a](b.md)`\n```\n[c](d.md)\n```\n", nil},
		{"markdown link parent folder", "notes/x.md", "[t](../top.md) [u](../b/Dup.md)",
			[]L{{Raw: "[t](../top.md)", Key: "top", Alias: "t"}, {Raw: "[u](../b/Dup.md)", Key: "b/dup", Alias: "u"}}},
		{"markdown link vault absolute", "notes/x.md", "[t](/a/b.md)", []L{{Raw: "[t](/a/b.md)", Key: "a/b", Alias: "t"}}},
		{"markdown link angle and title", "x.md", `[t](<my note.md> "Title")`,
			[]L{{Raw: `[t](<my note.md> "Title")`, Key: "my note", Alias: "t"}}},
		{"markdown embed", "x.md", "![t](n.md)", []L{{Raw: "![t](n.md)", Key: "n", Alias: "t", Embed: true}}},
		{"markdown non-notes", "x.md", "[a](https://x.org/a.md) [b](mailto:a@b.c) [d](#local) [e](//host/x.md) [f](obsidian://open?x.md) [g](C:/x.md) [h](folder/)", nil},
		{"markdown link to an attachment", "notes/x.md", "![](../img/pic.png) [c](img.png)",
			[]L{{Raw: "![](../img/pic.png)", Key: "img/pic.png", Embed: true}, {Raw: "[c](img.png)", Key: "img.png", Alias: "c"}}},
		{"document order across kinds", "x.md", "[m](m.md) [[w]]",
			[]L{{Raw: "[m](m.md)", Key: "m", Alias: "m"}, {Raw: "[[w]]", Key: "w"}}},
		{"duplicates kept", "x.md", "[[a]] [[A]]", []L{{Raw: "[[a]]", Key: "a"}, {Raw: "[[A]]", Key: "a"}}},
		{"frontmatter link first", "x.md", "---\nowner: \"[[Ada]]\"\n---\n[[b]]",
			[]L{{Raw: "[[Ada]]", Key: "ada"}, {Raw: "[[b]]", Key: "b"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, _ := Parse(tc.path, []byte(tc.raw))
			if tc.links == nil {
				assert.Empty(t, n.Links)
				return
			}
			assert.Equal(t, tc.links, n.Links)
		})
	}
}

func TestLinkKey(t *testing.T) {
	tests := map[string]string{
		"Note":            "note",
		"Folder/Note.md":  "folder/note",
		"/Folder/Note":    "folder/note",
		"./Note":          "note",
		`a\b`:             `a\b`,
		"  Spaced  ":      "spaced",
		"cafe\u0301":      "café", // decomposed to NFC
		"Notes.MD":        "notes",
		"archive.md.md":   "archive.md",
		"../outside/note": "../outside/note",
	}
	for in, want := range tests {
		assert.Equal(t, want, LinkKey(in), in)
	}
}

func TestSpansPointAtRaw(t *testing.T) {
	raw := "\ufeff---\r\nowner: \"[[Ada|A]]\"\r\n---\r\nSee [[Folder/Target#h|x]] and [t](sub/Other%20Note.md#p).\r\n"
	p := parseNote("n.md", []byte(raw))
	require.Len(t, p.spans, 3)
	text := raw[p.bom:]
	want := []struct{ raw, target string }{
		{"[[Ada|A]]", "Ada"},
		{"[[Folder/Target#h|x]]", "Folder/Target"},
		{"[t](sub/Other%20Note.md#p)", "sub/Other%20Note.md"},
	}
	for i, s := range p.spans {
		assert.Equal(t, want[i].raw, text[s.start:s.end])
		assert.Equal(t, want[i].target, text[s.tStart:s.tEnd])
	}
}

// The index keeps each link's key and written target for as long as the
// note exists: none of a parsed note's link strings may be a window into
// the file's text, or it would keep the whole text alive (every note's,
// after a first sync).
func TestLinkStringsDoNotPinText(t *testing.T) {
	raw := "---\nup: \"[[Parent Note]]\"\n---\n" + strings.Repeat("filler ", 200) +
		"see [[Other Note#Part|shown]], ![[folder/Embedded]] and [md](sub/Thing%20One.md#x) and [[lower]].\n"
	p := parseNote("a/Note.md", []byte(raw))
	require.Len(t, p.note.Links, 5)
	inText := func(s string) bool {
		if s == "" {
			return false
		}
		lo := uintptr(unsafe.Pointer(unsafe.StringData(p.note.Content)))
		at := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		// The content is a window into the text that starts at most the
		// frontmatter before it.
		return at+uintptr(len(s)) > lo-uintptr(len(raw)) && at < lo+uintptr(len(p.note.Content))
	}
	for i, l := range p.note.Links {
		for _, s := range []string{l.Raw, l.Key, l.Alias, l.Heading, p.spans[i].written} {
			assert.False(t, inText(s), "link %d: %q is a window into the note's text", i, s)
		}
	}
	want := []core.Link{
		{Raw: "[[Parent Note]]", Key: "parent note"},
		{Raw: "[[Other Note#Part|shown]]", Key: "other note", Alias: "shown", Heading: "Part"},
		{Raw: "![[folder/Embedded]]", Key: "folder/embedded", Embed: true},
		{Raw: "[md](sub/Thing%20One.md#x)", Key: "sub/thing one", Alias: "md", Heading: "x"},
		{Raw: "[[lower]]", Key: "lower"},
	}
	assert.Equal(t, want, p.note.Links)
	assert.Equal(t, []string{"Parent Note", "Other Note", "folder/Embedded", "sub/Thing One.md", "lower"},
		[]string{p.spans[0].written, p.spans[1].written, p.spans[2].written, p.spans[3].written, p.spans[4].written})
}
