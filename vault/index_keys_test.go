package vault

import (
	"slices"
	"testing"
)

// newEntry takes a note's keys as windows into its group key: they must
// be NoteKeys of its path, whatever the case, accents and depth.
func TestEntryKeysAreNoteKeys(t *testing.T) {
	for _, p := range []string{
		"a.md", "A.MD", "Notes/Café.md", "Notes/Cafe\u0301.Md", "x/y/z/Deep Note.md",
		"İstanbul/KELVIN \u212a.md", "ſtraße/ß.md", "a/.md", "dir.v2/file.name.md", "日本/メモ.md",
	} {
		e := newEntry(p)
		if want := NoteKeys(p); !slices.Equal(e.keys(), want) || e.stem() != want[0] {
			t.Errorf("%q: keys %q, stem %q; want %q", p, e.keys(), e.stem(), want)
		}
		if e.lower != groupKey(p) {
			t.Errorf("%q: group %q, want %q", p, e.lower, groupKey(p))
		}
	}
}

// isKeyOf is LinkKey(w) == key without the copy.
func TestIsKeyOfIsLinkKey(t *testing.T) {
	for _, w := range []string{
		"Note", "note", "Folder/Note", "/abs/Note", ".//x", "./rel/Note.md", "Note.MD", "Note.md.md",
		" spaced ", "Café", "KELVIN \u212a", "a.mdx", ".md", "", "/", "./", "x/./y",
	} {
		for _, key := range []string{LinkKey(w), "note", "folder/note", "", "note.md"} {
			if got, want := isKeyOf(w, key), LinkKey(w) == key; got != want {
				t.Errorf("isKeyOf(%q, %q) = %v, want %v", w, key, got, want)
			}
		}
	}
}
