package docindex

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

func TestSymlinksInsideTheRootsIndexTheRealFile(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	real := write(t, filepath.Join(f.vault, "notes", "real.md"), guide)
	write(t, filepath.Join(f.docs, "other.md"), "# Other root\nA file of the second root.")
	links := map[string]string{
		"alias.md":           "notes/real.md", // relative
		"abs-alias.md":       real,            // absolute, inside the root
		"folder-link":        "notes",         // a folder
		"chain.md":           "alias.md",      // a link to a link
		"to-other-root.md":   filepath.Join(f.docs, "other.md"),
		"notes/up-and-in.md": "../notes/real.md",
	}
	for name, dest := range links {
		require.NoError(t, os.Symlink(dest, filepath.Join(f.vault, name)))
	}

	first, err := f.svc.IndexFile(ctx, "alias.md", "")
	require.NoError(t, err)
	assert.Equal(t, real, first.SourceFile, "a link is indexed under the real path of its file")
	for _, p := range []string{"notes/real.md", "abs-alias.md", "folder-link/real.md", "chain.md", "notes/up-and-in.md"} {
		r, err := f.svc.IndexFile(ctx, p, "")
		require.NoError(t, err, p)
		assert.Equal(t, real, r.SourceFile, p)
		assert.True(t, r.Skipped, "%s is the same file, already indexed: no second copy", p)
		assert.Equal(t, first.ChunkIDs, r.ChunkIDs, p)
	}
	r, err := f.svc.IndexFile(ctx, "to-other-root.md", "")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(f.docs, "other.md"), r.SourceFile, "a link into another root names the file there")

	// index_directory agrees: the links are not followed, the real file
	// is skipped as already indexed, and a folder given as a link is
	// walked under its real path.
	res, err := f.svc.IndexDirectory(ctx, f.vault, true, "")
	require.NoError(t, err)
	assert.Equal(t, 0, res.FilesIndexed)
	assert.Equal(t, 1, res.SkippedDuplicates, "notes/real.md only")
	res, err = f.svc.IndexDirectory(ctx, "folder-link", true, "")
	require.NoError(t, err)
	assert.Equal(t, 1, res.SkippedDuplicates)
	st, err := f.svc.Stats(ctx)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{real, filepath.Join(f.docs, "other.md")}, st.SourceFiles, "one copy of each file")

	// search's source_file filter and delete_file take the link too.
	hits, err := f.svc.Search(ctx, "OAuth login", Filter{SourceFile: "alias.md"}, 5)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, real, hits[0].SourceFile)
	src, n, err := f.svc.DeleteFile(ctx, "chain.md")
	require.NoError(t, err)
	assert.Equal(t, real, src)
	assert.Equal(t, len(first.ChunkIDs), n)
}

func TestLinksLeadingOutOrInALoopAreRefused(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	write(t, filepath.Join(f.outside, "secret.md"), "# Secret\nhunter2")
	require.NoError(t, os.Symlink("secret-hop.md", filepath.Join(f.vault, "hop.md")))
	require.NoError(t, os.Symlink("../outside/secret.md", filepath.Join(f.vault, "secret-hop.md")))
	require.NoError(t, os.Symlink("loop-b.md", filepath.Join(f.vault, "loop-a.md")))
	require.NoError(t, os.Symlink("loop-a.md", filepath.Join(f.vault, "loop-b.md")))

	_, err := f.svc.IndexFile(ctx, "hop.md", "")
	require.ErrorIs(t, err, ErrNotAllowed, "the second link leads out")
	assert.Contains(t, err.Error(), "symbolic link leading outside")
	_, err = f.svc.IndexFile(ctx, "loop-a.md", "")
	require.ErrorIs(t, err, ErrReadFailed)
	assert.Contains(t, err.Error(), "too many levels of symbolic links")
}

func TestEmptyFilesAreRefused(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	empty := write(t, filepath.Join(f.docs, "empty.md"), "")
	blank := write(t, filepath.Join(f.docs, "blank.txt"), " \n\n\t\n")
	write(t, filepath.Join(f.docs, "full.txt"), "Some text.")

	_, err := f.svc.IndexFile(ctx, empty, "")
	require.ErrorIs(t, err, ErrEmpty)
	assert.Equal(t, "File is empty: "+empty, err.Error())
	_, err = f.svc.IndexFile(ctx, blank, "")
	require.ErrorIs(t, err, ErrEmpty)
	assert.Equal(t, "File is empty: "+blank+" has no text to index", err.Error())

	res, err := f.svc.IndexDirectory(ctx, f.docs, true, "")
	require.NoError(t, err)
	assert.Equal(t, 1, res.FilesIndexed, "only full.txt counts as indexed")
	assert.ElementsMatch(t, []FailedFile{
		{File: blank, Error: "File is empty: " + blank + " has no text to index"},
		{File: empty, Error: "File is empty: " + empty},
	}, res.FailedFiles)
	st, err := f.svc.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, st.UniqueSources)
}

func TestFilterValuesAreCheckedAndCleaned(t *testing.T) {
	f := newFixture(t)
	_, err := f.svc.Search(t.Context(), "x", Filter{DocType: "pdf"}, 5)
	require.ErrorIs(t, err, ErrInvalid)
	assert.Equal(t, "Invalid doc_type: pdf (use document or memory)", err.Error())

	got, err := f.svc.NormalizeFilter(Filter{SourceFile: "sub/../a.md", DocType: "document"})
	require.NoError(t, err)
	assert.Equal(t, Filter{SourceFile: filepath.Join(f.vault, "a.md"), DocType: "document"}, got)
}

// TestNoReadLeavesTheRootsWhileNamesAreSwapped swaps, as fast as it can, a
// file for a link to an outside canary and a folder for a link to an
// outside folder holding canaries, while index_file, index_directory and
// searches run: no chunk and no answer may ever hold a canary byte. The
// check-then-open-by-name code this replaced indexed the canary within a
// few hundred swaps.
func TestNoReadLeavesTheRootsWhileNamesAreSwapped(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	const canary = "CANARY-7f3a outside bytes"
	write(t, filepath.Join(f.outside, "canary.md"), "# Canary\n"+canary)
	write(t, filepath.Join(f.outside, "dir", "doc.md"), "# Canary dir\n"+canary)
	file := filepath.Join(f.vault, "doc.md")
	dir := filepath.Join(f.vault, "dir")
	inside := "# Inside\nOrdinary text of the vault about gardening."
	write(t, file, inside)
	write(t, filepath.Join(dir, "doc.md"), inside+" In a folder.")

	// Bounded: the readers stop after minSwaps swaps, or maxCalls calls
	// each (a slow attacker on a loaded machine).
	minSwaps, maxCalls := int64(400), 3000
	if testing.Short() {
		minSwaps, maxCalls = 200, 1000
	}
	var stop atomic.Bool
	var swaps atomic.Int64
	attacker := make(chan struct{})
	go func() {
		defer close(attacker)
		tmp := filepath.Join(f.vault, ".swap")
		for i := 0; !stop.Load(); i++ {
			_ = os.RemoveAll(tmp)
			if i%2 == 0 {
				_ = os.Symlink(filepath.Join(f.outside, "canary.md"), tmp)
				_ = os.Rename(tmp, file)
				_ = os.RemoveAll(dir)
				_ = os.Symlink(filepath.Join(f.outside, "dir"), dir)
			} else {
				_ = os.WriteFile(tmp, []byte(inside), 0o644)
				_ = os.Rename(tmp, file)
				_ = os.Remove(dir)
				_ = os.MkdirAll(dir, 0o755)
				_ = os.WriteFile(filepath.Join(dir, "doc.md"), []byte(inside+" In a folder."), 0o644)
			}
			swaps.Add(1)
		}
	}()
	var leaks atomic.Int64
	check := func(what, text string) {
		if strings.Contains(text, "CANARY") {
			leaks.Add(1)
			t.Errorf("%s holds outside bytes: %q", what, text)
		}
	}
	var calls atomic.Int64
	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			for i := 0; i < maxCalls && swaps.Load() < minSwaps; i++ {
				calls.Add(1)
				switch i % 4 {
				case 0, 1:
					p := []string{"doc.md", "dir/doc.md"}[i%4]
					if r, err := f.svc.IndexFile(ctx, p, ""); err != nil {
						check("index_file error", err.Error())
					} else {
						check("index_file", r.SourceFile)
					}
				case 2:
					if r, err := f.svc.IndexDirectory(ctx, f.vault, true, ""); err == nil {
						for _, ff := range r.FailedFiles {
							check("failed file", ff.Error)
						}
					}
				case 3:
					if hits, err := f.svc.Search(ctx, "canary outside bytes gardening", Filter{}, 10); err == nil {
						for _, h := range hits {
							check("search", h.Content)
						}
					}
				}
			}
		})
	}
	readers.Wait()
	stop.Store(true)
	<-attacker
	all, err := f.store.SearchChunks(ctx, project, core.ChunkQuery{Vector: mustEmbed(t, f.emb, "canary outside bytes"), Model: f.emb.Model(), Limit: 1000})
	require.NoError(t, err)
	for _, c := range all {
		check("stored chunk "+c.SourceFile, c.Content)
	}
	t.Logf("%d swaps, %d calls, %d chunks in the index, %d leaks", swaps.Load(), calls.Load(), len(all), leaks.Load())
	assert.Zero(t, leaks.Load())
}

func mustEmbed(t *testing.T, emb core.Embedder, text string) []float32 {
	t.Helper()
	vs, err := emb.Embed(t.Context(), []string{text})
	require.NoError(t, err)
	return vs[0]
}
