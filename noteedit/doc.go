// Package noteedit edits one note the way a careful person would: a
// section named by its heading path gets lines appended or prepended, its
// body replaced or a new section after it; an exact text span that occurs
// as often as expected is replaced; one frontmatter key is set or
// removed. Everything the edit was not asked to touch stays byte for
// byte: line breaks (new text takes the note's own), the byte order mark,
// frontmatter comments and key order, a missing final line break.
//
// Apply works on the bytes of a note file and returns the spans it
// changed, from which Diff writes a unified diff. Service ties it to the
// vault: it resolves a note by any ID form, applies the edit through a
// compare-and-swap write (re-applied when an editor changed the note
// meanwhile, refused as a conflict when the caller's expected version no
// longer holds) and returns the diff and the new version.
//
// Headings are Markdown's, as Obsidian's outline shows them: ATX ("##
// Today") and setext (a paragraph underlined with === or ---) headings;
// lines in fenced code blocks, %% comments %%, <!-- HTML comments -->,
// block quotes, list items and indented code are not headings. A section
// runs from its heading to the next heading of the same or a higher
// level; its own text ends at its first subsection.
package noteedit
