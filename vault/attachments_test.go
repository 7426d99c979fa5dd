package vault

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vaultgraph/vaultgraph/core"
)

func TestAttachmentsListsImagesAndPDFsOfTheVaultOnly(t *testing.T) {
	outside := t.TempDir()
	writeFile(t, outside, "secret.png", "outside bytes")
	writeFile(t, outside, "dir/leak.pdf", "outside pdf")
	root := writeVault(t, map[string]string{
		"note.md":                  "# Note ![[assets/Diagram.PNG]]",
		"assets/Diagram.PNG":       "\x89PNG fake",
		"assets/photo.jpeg":        "jpeg",
		"papers/p.pdf":             "%PDF-1.4 fake",
		"papers/notes.txt":         "not offered",
		"assets/song.mp3":          "not offered",
		".obsidian/icon.png":       "hidden folder",
		"assets/.hidden.png":       "hidden file",
		"private/skip.png":         "ignored by a glob",
		"big/huge.pdf":             "",
		"assets/sub/deep/tiny.gif": "GIF89a",
	})
	require.NoError(t, os.Truncate(filepath.Join(root, "big", "huge.pdf"), MaxAttachmentSize+1))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.png"), filepath.Join(root, "assets", "link.png")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "dir"), filepath.Join(root, "linked")))
	m := newTestMirror(t, root, newFakeStore(), func(c *Config) { c.Ignore = []string{"private/**"} })
	w := m.Writer()

	list, err := w.Attachments(t.Context())
	require.NoError(t, err)
	var paths []string
	for _, a := range list {
		paths = append(paths, a.Path+" "+a.MIMEType)
		require.False(t, a.ModTime.IsZero())
	}
	require.Equal(t, []string{
		"assets/Diagram.PNG image/png",
		"assets/photo.jpeg image/jpeg",
		"assets/sub/deep/tiny.gif image/gif",
		"papers/p.pdf application/pdf",
	}, paths)
	require.Equal(t, int64(len("%PDF-1.4 fake")), list[3].Size)

	t.Run("a listed attachment reads as on disk", func(t *testing.T) {
		a, raw, err := w.ReadAttachment("assets/Diagram.PNG")
		require.NoError(t, err)
		require.Equal(t, "\x89PNG fake", string(raw))
		require.Equal(t, core.Attachment{Path: "assets/Diagram.PNG", MIMEType: "image/png", Size: int64(len(raw)), ModTime: a.ModTime}, a)
	})
	t.Run("anything else is not found and reads nothing", func(t *testing.T) {
		for _, rel := range []string{
			"assets/link.png", "linked/leak.pdf", "../" + filepath.Base(outside) + "/secret.png", outside + "/secret.png",
			".obsidian/icon.png", "assets/.hidden.png", "private/skip.png", "note.md", "papers/notes.txt",
			"assets/missing.png", "", "assets",
		} {
			_, raw, err := w.ReadAttachment(rel)
			require.ErrorIs(t, err, core.ErrNotFound, rel)
			require.Nil(t, raw, rel)
		}
	})
	t.Run("one over the size limit is refused, saying so", func(t *testing.T) {
		_, raw, err := w.ReadAttachment("big/huge.pdf")
		require.True(t, errors.Is(err, ErrAttachmentTooLarge) && errors.Is(err, core.ErrInvalidArgument), "%v", err)
		require.Nil(t, raw)
		require.True(t, strings.Contains(err.Error(), "10485760"), err.Error())
	})
}
