package noteedit

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

func apply(t *testing.T, raw string, op Op) string {
	t.Helper()
	e, err := Apply([]byte(raw), op)
	require.NoError(t, err)
	return string(e.Out)
}

func applyErr(t *testing.T, raw string, op Op) string {
	t.Helper()
	_, err := Apply([]byte(raw), op)
	require.Error(t, err)
	require.True(t, errors.Is(err, core.ErrInvalidArgument), "want an invalid argument, got %v", err)
	return err.Error()
}

const daily = `---
date: 2024-05-01 # the day
tags: [daily]
---
# Journal

## Today
- wake up

### Morning
coffee

## Tomorrow
- plan
`

func TestSectionOperations(t *testing.T) {
	cases := []struct {
		name string
		op   Op
		want string
	}{
		{"append goes after the section's own last line, before its subsections",
			Op{Operation: Append, Heading: "## Today", Content: "- write"},
			strings.Replace(daily, "- wake up\n", "- wake up\n- write\n", 1)},
		{"prepend goes after the heading",
			Op{Operation: Prepend, Heading: "Today", Content: "- first"},
			strings.Replace(daily, "## Today\n", "## Today\n- first\n", 1)},
		{"a path names a nested heading",
			Op{Operation: Append, Heading: "Journal > Today > Morning", Content: "tea"},
			strings.Replace(daily, "coffee\n", "coffee\ntea\n", 1)},
		{"letter case does not matter when nothing matches exactly",
			Op{Operation: Append, Heading: "tomorrow", Content: "- rest"},
			strings.Replace(daily, "- plan\n", "- plan\n- rest\n", 1)},
		{"replace_section replaces the body and subsections, keeps the blank line before the next heading",
			Op{Operation: ReplaceSection, Heading: "Today", Content: "nothing\n"},
			strings.Replace(daily, "- wake up\n\n### Morning\ncoffee\n\n", "nothing\n\n", 1)},
		{"insert_after adds a section after the whole section",
			Op{Operation: InsertAfter, Heading: "Today", Content: "## Notes\nsome"},
			strings.Replace(daily, "coffee\n\n## Tomorrow", "coffee\n\n## Notes\nsome\n\n## Tomorrow", 1)},
		{"insert_after the last section",
			Op{Operation: InsertAfter, Heading: "Tomorrow", Content: "## Later\n"},
			daily + "\n## Later\n"},
		{"append without heading goes at the end of the note",
			Op{Operation: Append, Content: "the end"},
			daily + "the end\n"},
		{"prepend without heading goes at the start of the body",
			Op{Operation: Prepend, Content: "start"},
			strings.Replace(daily, "---\n# Journal", "---\nstart\n# Journal", 1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { assert.Equal(t, c.want, apply(t, daily, c.op)) })
	}
}

func TestLineEndingsAndFinalLineBreak(t *testing.T) {
	crlf := strings.ReplaceAll(daily, "\n", "\r\n")
	got := apply(t, crlf, Op{Operation: Append, Heading: "Today", Content: "a\nb"})
	assert.Equal(t, strings.Replace(crlf, "- wake up\r\n", "- wake up\r\na\r\nb\r\n", 1), got)

	// A file without a final line break keeps ending without one.
	assert.Equal(t, "# A\nx\ny", apply(t, "# A\nx", Op{Operation: Append, Heading: "A", Content: "y"}))
	assert.Equal(t, "# A\ny", apply(t, "# A", Op{Operation: Append, Heading: "A", Content: "y"}))
	assert.Equal(t, "# A\nz", apply(t, "# A\nx", Op{Operation: ReplaceSection, Heading: "A", Content: "z\n"}))
	assert.Equal(t, "# A\nx\n\n# B", apply(t, "# A\nx", Op{Operation: InsertAfter, Heading: "A", Content: "# B"}))
	assert.Equal(t, "\ufeffnew\nold\n", apply(t, "\ufeffold\n", Op{Operation: Prepend, Content: "new"}))
}

func TestHeadingsInCodeAndSetext(t *testing.T) {
	note := "Title\n=====\n\n```md\n## Today\n```\n\n%%\n## Today\n%%\n\nSub\n---\nx\n"
	// The only real "Today"s are none: the fenced and commented ones do not count.
	msg := applyErr(t, note, Op{Operation: Append, Heading: "Today", Content: "y"})
	assert.Contains(t, msg, `heading "Today" not found`)
	assert.Contains(t, msg, `"Title > Sub"`)
	assert.Equal(t, strings.Replace(note, "x\n", "x\ny\n", 1), apply(t, note, Op{Operation: Append, Heading: "Sub", Content: "y"}))
	// A setext level-1 section holds the level-2 one.
	assert.Equal(t, "Title\n=====\nnew\n", apply(t, note, Op{Operation: ReplaceSection, Heading: "# Title", Content: "new"}))
	// A list item underlined is no heading; a thematic break is none either.
	assert.Contains(t, applyErr(t, "- item\n---\n", Op{Operation: Append, Heading: "item", Content: "y"}), "no headings")
}

func TestAmbiguousHeadingListsPaths(t *testing.T) {
	note := "# Mon\n## Today\na\n# Tue\n## Today\nb\n"
	msg := applyErr(t, note, Op{Operation: Append, Heading: "Today", Content: "y"})
	assert.Contains(t, msg, `names 2 sections (line 2: "Mon > Today", line 5: "Tue > Today")`)
	assert.Equal(t, strings.Replace(note, "b\n", "b\ny\n", 1), apply(t, note, Op{Operation: Append, Heading: "Tue > Today", Content: "y"}))
}

func TestReplaceText(t *testing.T) {
	note := "a date: 2024-01-01\r\nanother 2024-01-01\r\n"
	msg := applyErr(t, note, Op{Operation: ReplaceText, OldText: "2024-01-01", NewText: "2024-02-02"})
	assert.Contains(t, msg, "occurs 2 times (lines 1, 2), not once")
	assert.Contains(t, msg, "expected_count to 2")
	assert.Equal(t, strings.ReplaceAll(note, "2024-01-01", "x"), apply(t, note, Op{Operation: ReplaceText, OldText: "2024-01-01", NewText: "x", ExpectedCount: 2}))
	assert.Contains(t, applyErr(t, note, Op{Operation: ReplaceText, OldText: "2024-01-01", NewText: "x", ExpectedCount: 3}), "occurs 2 times, not 3")
	// "\n" in the texts matches the note's CRLF.
	assert.Equal(t, "a date: X\r\nY\r\n", apply(t, note, Op{Operation: ReplaceText, OldText: "2024-01-01\nanother 2024-01-01", NewText: "X\nY"}))
	assert.Contains(t, applyErr(t, note, Op{Operation: ReplaceText, OldText: "A  DATE"}), "differs only in letter case or blanks is at line 1")
}

func TestFrontmatterKeepsCommentsAndOrder(t *testing.T) {
	note := "---\r\n# owner's notes\r\ntitle: Plan # keep\r\nstatus: draft\r\ntags:\r\n  - a\r\n\r\n  - b\r\n# trailing comment\r\nz: 1\r\n---\r\nbody\r\n"
	got := apply(t, note, Op{Operation: SetFrontmatter, Key: "status", Value: "done"})
	assert.Equal(t, strings.Replace(note, "status: draft", "status: done", 1), got)
	got = apply(t, note, Op{Operation: SetFrontmatter, Key: "Tags", Value: []any{"x"}})
	assert.Equal(t, strings.Replace(note, "tags:\r\n  - a\r\n\r\n  - b\r\n", "tags:\r\n  - x\r\n", 1), got)
	got = apply(t, note, Op{Operation: SetFrontmatter, Key: "priority", Value: int64(2)})
	assert.Equal(t, strings.Replace(note, "z: 1\r\n", "z: 1\r\npriority: 2\r\n", 1), got)
	got = apply(t, note, Op{Operation: RemoveFrontmatter, Key: "tags"})
	assert.Equal(t, strings.Replace(note, "tags:\r\n  - a\r\n\r\n  - b\r\n", "", 1), got)
	e, err := Apply([]byte(note), Op{Operation: RemoveFrontmatter, Key: "missing"})
	require.NoError(t, err)
	assert.False(t, e.Changed())
	assert.Equal(t, "---\nstatus: done\n---\nbody\n", apply(t, "body\n", Op{Operation: SetFrontmatter, Key: "status", Value: "done"}))
}

func TestDiff(t *testing.T) {
	e, err := Apply([]byte(daily), Op{Operation: Append, Heading: "Today", Content: "- write"})
	require.NoError(t, err)
	assert.Equal(t, "--- a/d.md\n+++ b/d.md\n@@ -7,4 +7,5 @@\n ## Today\n - wake up\n+- write\n \n ### Morning\n", Diff("d.md", []byte(daily), e.Spans))
	e, err = Apply([]byte("a x b x\nc\n"), Op{Operation: ReplaceText, OldText: "x", NewText: "y", ExpectedCount: 2})
	require.NoError(t, err)
	assert.Equal(t, "--- a/n.md\n+++ b/n.md\n@@ -1,2 +1,2 @@\n-a x b x\n+a y b y\n c\n", Diff("n.md", []byte("a x b x\nc\n"), e.Spans))
}
