package vault

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/confine"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// walkDirRef is the walk as filepath.WalkDir made it before the walk
// stated files relative to their folder: the reference its list (order,
// sizes, mtimes, inodes) must equal.
func walkDirRef(m *Mirror, under string) ([]fileStat, error) {
	var files []fileStat
	start := filepath.Join(m.cfg.Root, filepath.FromSlash(under))
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		rel := m.rel(p)
		if err != nil {
			if p == start {
				return err
			}
			return nil
		}
		if d.Type().IsRegular() && isTempName(d.Name()) {
			return nil
		}
		if rel != "" && m.ignore.skip(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
		case d.IsDir():
		case d.Type().IsRegular() && isNodePath(rel):
			info, err := d.Info()
			if err != nil {
				return nil
			}
			files = append(files, fileStat{path: rel, size: info.Size(), mtime: info.ModTime(), ino: confine.Inode(info)})
		}
		return nil
	})
	return files, err
}

// The walk lists what filepath.WalkDir listed, in its order, with the same
// stat: nested and ignored folders, dot-files, symbolic links to files and
// folders, files that are not notes, an unreadable folder, a start that is
// a file, a missing start.
func TestWalkListsWhatWalkDirListed(t *testing.T) {
	root := writeVault(t, map[string]string{
		"a.md": "a", "B.md": "bb", "c.bin": "x", "x/a.md": "xa", "x/y/z/deep.md": "d",
		"x/y/z.md": "z", ".hidden/h.md": "h", "x/.dot.md": "dot", "ignored/i.md": "i",
		"x-y/n.md": "n", "x y/s.md": "s", "ünï/ç.md": "u", "locked/l.md": "l", "big.MD": "B",
	})
	require.NoError(t, os.Symlink(filepath.Join(root, "a.md"), filepath.Join(root, "link.md")))
	require.NoError(t, os.Symlink(filepath.Join(root, "x"), filepath.Join(root, "xlink")))
	require.NoError(t, os.Chmod(filepath.Join(root, "locked"), 0))
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(root, "locked"), 0o755) })
	m := newTestMirror(t, root, memstore.New(), func(c *Config) { c.Ignore = []string{"ignored/"} })
	for _, under := range []string{"", "x", "x/y", "ignored", "a.md", "xlink", "missing", "locked"} {
		want, wantErr := walkDirRef(m, under)
		got, err := m.walk(under, nil)
		if wantErr != nil {
			require.Error(t, err, under)
			continue
		}
		require.NoError(t, err, under)
		if os.Geteuid() == 0 && under == "locked" {
			continue // root reads it anyway; both list it
		}
		require.Equal(t, want, got, under)
		if under == "" {
			require.Len(t, got, 10, "every note file but the ignored, linked and hidden ones")
		}
	}
}
