package vault

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResolution(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		link  string
		want  string
	}{
		{"full path wins over a shorter name match", []string{"a/c.md", "c/a/c.md"}, "[[a/c]]", "a/c.md"},
		{"root note wins by shortest path", []string{"x/c.md", "c.md", "y/z/c.md"}, "[[c]]", "c.md"},
		{"shortest path among folders", []string{"deep/er/c.md", "x/c.md"}, "[[c]]", "x/c.md"},
		{"then lexical", []string{"y/c.md", "x/c.md"}, "[[c]]", "x/c.md"},
		{"lexical compares lowercased paths", []string{"b/c.md", "A/c.md"}, "[[c]]", "a/c.md"},
		{"case-insensitive", []string{"Notes/ML Basics.md"}, "[[ml basics]]", "notes/ml basics.md"},
		{"folder suffix", []string{"a/b/c.md", "x/c.md"}, "[[b/c]]", "a/b/c.md"},
		{"case twins: lowercase twin wins", []string{"T/A.md", "t/a.md"}, "[[t/a]]", "t/a.md"},
		{"markdown link by relative path", []string{"n/c.md", "c.md"}, "[x](n/c.md)", "n/c.md"},
		{"unresolved", []string{"a.md"}, "[[Missing Note]]", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"linker.md": tc.link}
			for _, f := range tc.files {
				files[f] = "note " + f
			}
			store := newFakeStore()
			m := newTestMirror(t, writeVault(t, files), store)
			_, err := m.Sync(t.Context())
			require.NoError(t, err)
			assert.Equal(t, []string{tc.want}, targets(t, store.snapshot(), "linker.md"))
		})
	}
}

func TestBrokenLinkWarnings(t *testing.T) {
	store := newFakeStore()
	m := newTestMirror(t, writeVault(t, map[string]string{
		"a.md": "[[Missing Note|shown]] [[Missing Note#h]] [x](../gone.md) [[b]]",
		"b.md": "",
	}), store)
	stats, err := m.Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{"Broken link: [[Missing Note]]", "Broken link: [[../gone.md]]"}, m.Lint().get("a.md"))
	assert.Equal(t, 4, stats.Links)
	assert.Equal(t, 3, stats.Unresolved)
	assert.Equal(t, []string{"", "", "", "b.md"}, targets(t, store.snapshot(), "a.md"))
	notes, problems := m.Lint().Count()
	assert.Equal(t, 1, notes)
	assert.Equal(t, 2, problems)
}

func TestCaseCollidingIDs(t *testing.T) {
	store := newFakeStore()
	m := newTestMirror(t, writeVault(t, map[string]string{
		"Notes/A.md": "upper",
		"notes/a.md": "lower",
		"Notes/B.md": "only one",
	}), store)
	_, err := m.Sync(t.Context())
	require.NoError(t, err)
	notes := store.snapshot()
	assert.Equal(t, "Notes/A.md", notes["Notes/A.md"].Path)
	assert.Equal(t, "notes/a.md", notes["notes/a.md"].Path)
	assert.Equal(t, "Notes/B.md", notes["notes/b.md"].Path)
	assert.Len(t, notes, 3)
}
