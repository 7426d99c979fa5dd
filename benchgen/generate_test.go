package benchgen

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vaultHash hashes every file of dir with its path, in walk order (which
// is lexical), so two vaults hash alike only when they are byte-identical.
func vaultHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		h.Write([]byte(rel + "\x00"))
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		h.Write(data)
		return err
	})
	require.NoError(t, err)
	return hex.EncodeToString(h.Sum(nil))
}

func generate(t *testing.T, cfg Config) (string, *Manifest) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	m, err := Generate(dir, cfg)
	require.NoError(t, err)
	return dir, m
}

func TestSameSeedGivesByteIdenticalVaults(t *testing.T) {
	t.Parallel()
	// Different worker counts too: parallel writing must not change a byte.
	dirA, mA := generate(t, Config{Notes: 600, Seed: 7, Workers: 1})
	dirB, mB := generate(t, Config{Notes: 600, Seed: 7, Workers: 5})
	assert.Equal(t, vaultHash(t, dirA), vaultHash(t, dirB))
	mA.Config.Workers, mB.Config.Workers = 0, 0
	assert.Equal(t, mA, mB)

	dirC, _ := generate(t, Config{Notes: 600, Seed: 8})
	assert.NotEqual(t, vaultHash(t, dirA), vaultHash(t, dirC), "another seed must give another vault")
}

func TestManifestMatchesFiles(t *testing.T) {
	t.Parallel()
	dir, m := generate(t, Config{Notes: 300, Seed: 3})
	require.Len(t, m.Notes, 300)
	var total int64
	for _, n := range m.Notes {
		st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(n.Path)))
		require.NoError(t, err, n.Path)
		assert.Equal(t, int64(n.Size), st.Size(), n.Path)
		total += st.Size()
	}
	assert.Equal(t, total, m.Bytes)
	var files int
	require.NoError(t, filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
		}
		return err
	}))
	assert.Equal(t, 300, files, "the vault holds the notes and nothing else")
}

func TestVaultShape(t *testing.T) {
	t.Parallel()
	_, m := generate(t, Config{Notes: 4000, Seed: 1})

	minSize, maxSize := m.Notes[0].Size, 0
	for _, n := range m.Notes {
		minSize, maxSize = min(minSize, n.Size), max(maxSize, n.Size)
	}
	assert.GreaterOrEqual(t, minSize, minNoteSize)
	assert.LessOrEqual(t, maxSize, maxNoteSize)
	assert.Greater(t, maxSize, 30*1024, "sizes are heavy-tailed")
	mean := float64(m.Bytes) / float64(len(m.Notes))
	assert.InDelta(t, 3000, mean, 1500, "mean note size is a few KB")

	// Power law: the top hub gathers a large share of all notes as
	// linkers, while the median note has a handful.
	hubs := m.Hubs(len(m.Notes))
	assert.Greater(t, hubs[0].InDegree, len(m.Notes)/10, "top hub")
	assert.Less(t, hubs[len(hubs)/2].InDegree, 10, "median in-degree")
	assert.Greater(t, hubs[0].InDegree, 20*hubs[len(hubs)/2].InDegree)

	brokenShareSeen := float64(m.Broken) / float64(m.Links)
	assert.InDelta(t, brokenShare, brokenShareSeen, 0.01)

	byName := map[string]map[string]bool{} // file name -> folders
	depth, tagged, nested := 0, 0, 0
	for _, n := range m.Notes {
		name := strings.ToLower(filepath.Base(n.Path))
		if byName[name] == nil {
			byName[name] = map[string]bool{}
		}
		byName[name][filepath.Dir(n.Path)] = true
		depth = max(depth, strings.Count(n.Path, "/"))
		if len(n.Tags) > 0 {
			tagged++
		}
		for _, tag := range n.Tags {
			if strings.Contains(tag, "/") {
				nested++
			}
		}
	}
	assert.Greater(t, len(byName["index.md"]), 5, "duplicate file names in different folders")
	assert.GreaterOrEqual(t, depth, 3, "nested folders")
	assert.Greater(t, tagged, len(m.Notes)/2)
	assert.Positive(t, nested, "nested tags")
}

func TestVocabularyCannotResolveBrokenLinks(t *testing.T) {
	t.Parallel()
	all := append(append(append([]string(nil), words...), topFolders...), dupNames...)
	for _, w := range all {
		assert.False(t, strings.HasPrefix(strings.ToLower(w), strings.ToLower(brokenPrefix)), w)
	}
}

func TestGenerateRefusesNonEmptyFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mine.md"), []byte("keep me"), 0o644))
	_, err := Generate(dir, Config{Notes: 5, Seed: 1})
	require.ErrorContains(t, err, "not empty")
	data, err := os.ReadFile(filepath.Join(dir, "mine.md"))
	require.NoError(t, err)
	assert.Equal(t, "keep me", string(data))
}

func TestGenerateRejectsBadConfig(t *testing.T) {
	t.Parallel()
	_, err := Generate(t.TempDir(), Config{Notes: 0})
	require.Error(t, err)
}

func TestTinyVaults(t *testing.T) {
	t.Parallel()
	_, one := generate(t, Config{Notes: 1, Seed: 1})
	require.Len(t, one.Notes, 1)
	assert.Equal(t, one.Links, one.Broken, "a lone note has only broken links")

	_, two := generate(t, Config{Notes: 2, Seed: 1})
	for _, n := range two.Notes {
		assert.LessOrEqual(t, n.InDegree, 1, "no self links: only the other note can link here")
	}
}
