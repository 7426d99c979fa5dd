package vault

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// A restored note's links keep no text as written (entry.texts): a rename
// or a broken-link warning reads it back from the store's record, or from
// the file when the store cannot give it. Either way the result is what a
// mirror that read the files gives.

// getNotesFailing is a store that cannot read notes back (GetNotes): a
// restored link's text comes from its file.
type getNotesFailing struct{ core.GraphStore }

func (getNotesFailing) GetNotes(context.Context, string, []string) ([]core.Note, error) {
	return nil, core.NewProviderError("get notes", errStoreDown)
}

// textsVault has links whose text as written differs from their key
// (case, folders, extension, spaces, markdown paths).
func textsVault() map[string]string {
	return map[string]string{
		"linker.md": "[[Old]] [[Old|alias]] [[Old#Heading]] ![[Old]] [[folder/Old]] [[/folder/Old.md|x]] [[ Old ]]\n" +
			"[md](folder/Old.md#Part%20one) [angle](<folder/Old.md>) [[Gone Note]] [[GONE note]] [[Sibling]]\n",
		"folder/Old.md":     "I am old. [s](sibling.md) [[Gone Note|g]]",
		"folder/sibling.md": "sibling [[Old]]",
	}
}

// restarted syncs a vault of files into a store, then returns a second
// mirror that restored its index from that store (wrapped by wrap), with
// the restored entries holding no texts.
func restarted(t *testing.T, files map[string]string, wrap func(core.GraphStore) core.GraphStore) (string, *Mirror) {
	t.Helper()
	root := writeVault(t, files)
	ageFiles(t, root)
	store := memstore.New()
	_, err := newTestMirror(t, root, store).Sync(t.Context())
	require.NoError(t, err)
	m := newTestMirror(t, root, wrap(store))
	stats, err := m.Sync(t.Context())
	require.NoError(t, err)
	require.Zero(t, stats.Read, "restored from the store")
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.idx.byPath {
		require.Nil(t, e.texts, "%s: a restored note keeps no texts", e.path)
	}
	return root, m
}

func TestRestoredLinksReadTheirTextsBack(t *testing.T) {
	sources := map[string]func(core.GraphStore) core.GraphStore{
		"from the store": func(s core.GraphStore) core.GraphStore { return s },
		"from the file":  func(s core.GraphStore) core.GraphStore { return getNotesFailing{s} },
	}
	for name, wrap := range sources {
		t.Run(name, func(t *testing.T) {
			t.Run("rename", func(t *testing.T) {
				wantRoot, w, _ := syncedWriter(t, textsVault())
				_, err := w.Rename(t.Context(), "folder/Old.md", "dest/New Name.md")
				require.NoError(t, err)

				root, m := restarted(t, textsVault(), wrap)
				_, err = m.Writer().Rename(t.Context(), "folder/Old.md", "dest/New Name.md")
				require.NoError(t, err)
				for _, p := range []string{"linker.md", "dest/New Name.md", "folder/sibling.md"} {
					assert.Equal(t, readVaultFile(t, wantRoot, p), readVaultFile(t, root, p), p)
				}
			})
			t.Run("broken links", func(t *testing.T) {
				files := textsVault()
				files["Gone Note.md"] = "here for now"
				wantRoot := writeVault(t, files)
				fresh := newTestMirror(t, wantRoot, memstore.New())
				_, err := fresh.Sync(t.Context())
				require.NoError(t, err)
				require.NoError(t, os.Remove(filepath.Join(wantRoot, "Gone Note.md")))
				_, err = fresh.Sync(t.Context())
				require.NoError(t, err)

				root, m := restarted(t, files, wrap)
				require.NoError(t, os.Remove(filepath.Join(root, "Gone Note.md")))
				_, err = m.Sync(t.Context())
				require.NoError(t, err)
				want := brokenLinks(fresh)
				require.Contains(t, want, "linker.md: "+brokenLink("GONE note"), "written as in the file")
				assert.Equal(t, want, brokenLinks(m))
			})
		})
	}
}

// A restart that leaves out a note the store holds (ignored now) resolves
// the links to it to nothing: their texts are read back for the warning.
func TestRestartBreakingStoredLinksReadsTheirTexts(t *testing.T) {
	files := textsVault()
	files["Gone Note.md"] = "ignored at the restart"
	ignore := func(c *Config) { c.Ignore = []string{"Gone Note.md"} }
	wantRoot := writeVault(t, files)
	fresh := newTestMirror(t, wantRoot, memstore.New(), ignore)
	_, err := fresh.Sync(t.Context())
	require.NoError(t, err)
	want := brokenLinks(fresh)
	require.Contains(t, want, "linker.md: "+brokenLink("GONE note"))

	root := writeVault(t, files)
	ageFiles(t, root)
	store := memstore.New()
	_, err = newTestMirror(t, root, store).Sync(t.Context())
	require.NoError(t, err)
	m := newTestMirror(t, root, store, ignore)
	_, err = m.Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, want, brokenLinks(m))
}

// A restored note's text that neither the store nor the file holds any
// more (the file changed since it was indexed, and the store cannot read
// notes) is named by its links' keys, and not kept.
func TestRestoredLinksWithoutTheirTextUseTheirKeys(t *testing.T) {
	root, m := restarted(t, textsVault(), func(s core.GraphStore) core.GraphStore { return getNotesFailing{s} })
	writeFile(t, root, "linker.md", "changed [[Other]]")
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.idx.byPath["linker.md"]
	assert.Equal(t, "old", m.writtenText(t.Context(), e, 0))
	assert.Equal(t, "gone note", m.writtenText(t.Context(), e, 9))
	assert.Equal(t, linkText{written: "folder/old"}, m.linkText(t.Context(), e, 7), "a markdown link named as a wikilink: a rename leaves it")
	assert.Nil(t, e.texts)
}

// The note queued for the store is a source too: its text is the one
// indexed.
func TestRestoredLinksReadTheirTextsFromTheQueue(t *testing.T) {
	root, m := restarted(t, textsVault(), func(s core.GraphStore) core.GraphStore { return getNotesFailing{s} })
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.idx.byPath["linker.md"]
	p, _, err := m.load(e.path)
	require.NoError(t, err)
	m.pending[e.id] = m.noteOf(e, p)
	require.NoError(t, os.Remove(filepath.Join(root, "linker.md")))
	assert.Equal(t, "GONE note", m.writtenText(t.Context(), e, 10))
	assert.Equal(t, "/folder/Old.md", m.writtenText(t.Context(), e, 5))
	assert.Equal(t, linkText{markdown: true, written: "folder/Old.md"}, m.linkText(t.Context(), e, 7))
	assert.False(t, m.linkText(t.Context(), e, 0).markdown)
}
