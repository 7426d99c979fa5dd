package docindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/builtin"
	"github.com/vaultgraph/vaultgraph/memstore"
)

const project = "default"

// fixture is a vault, an extra allowed root, a folder outside both, and a
// service over an in-memory store.
type fixture struct {
	vault, docs, outside string
	store                *memstore.Store
	svc                  *Service
	emb                  core.Embedder
}

func write(t *testing.T, path, content string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	base := t.TempDir()
	f := &fixture{
		vault:   filepath.Join(base, "vault"),
		docs:    filepath.Join(base, "docs"),
		outside: filepath.Join(base, "outside"),
		store:   memstore.New(),
	}
	for _, d := range []string{f.vault, f.docs, f.outside} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	emb, err := builtin.New()
	require.NoError(t, err)
	f.emb = emb
	f.svc = f.service(t, emb, nil)
	return f
}

func (f *fixture) service(t *testing.T, emb core.Embedder, mem Memories) *Service {
	t.Helper()
	svc, err := New(Config{Project: project, Store: f.store, Embedder: emb, Roots: []string{f.vault, f.docs}, Vault: f.vault, Notes: f.store, Memories: mem})
	require.NoError(t, err)
	return svc
}

const guide = `Intro before any heading.

# Setup

## Authentication

Configure OAuth tokens and the login callback URL for authentication.

## Storage

Backups of the postgres database run nightly to object storage.
`

func TestPathsOutsideTheRootsAreRefused(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	secret := write(t, filepath.Join(f.outside, "secret.md"), "# Secret\nhunter2")
	write(t, filepath.Join(f.vault, "ok.md"), "# Fine\ntext")
	require.NoError(t, os.Symlink(secret, filepath.Join(f.vault, "link-out.md")))
	require.NoError(t, os.Symlink(f.outside, filepath.Join(f.vault, "dir-out")))
	require.NoError(t, os.Symlink(filepath.Join(f.vault, "ok.md"), filepath.Join(f.vault, "link-in.md")))

	for name, p := range map[string]string{
		"an absolute path elsewhere":       secret,
		"/etc/passwd":                      "/etc/passwd",
		"a .. escape from the vault":       "../outside/secret.md",
		"a .. escape inside an abs path":   filepath.Join(f.vault, "..", "outside", "secret.md"),
		"a symlinked file leading out":     filepath.Join(f.vault, "link-out.md"),
		"a file under a symlinked folder":  "dir-out/secret.md",
		"a missing file outside the roots": "/nonexistent/x.md",
		"a NUL byte":                       "ok.md\x00.txt",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := f.svc.IndexFile(ctx, p, "")
			require.ErrorIs(t, err, ErrNotAllowed)
			assert.True(t, strings.HasPrefix(err.Error(), "Path not allowed: "), err.Error())
			assert.NotContains(t, err.Error(), "hunter2")
		})
	}
	_, err := f.svc.IndexDirectory(ctx, f.outside, true, "")
	require.ErrorIs(t, err, ErrNotAllowed)
	_, err = f.svc.IndexDirectory(ctx, "dir-out", true, "")
	require.ErrorIs(t, err, ErrNotAllowed)

	st, err := f.svc.Stats(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.TotalDocuments, "nothing was indexed")

	// Inside the roots: a relative path, a symlink staying inside, and the
	// extra root all work.
	r, err := f.svc.IndexFile(ctx, "ok.md", "")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(f.vault, "ok.md"), r.SourceFile)
	_, err = f.svc.IndexFile(ctx, "link-in.md", "")
	require.NoError(t, err)
	_, err = f.svc.IndexFile(ctx, write(t, filepath.Join(f.docs, "d.txt"), "extra root"), "")
	require.NoError(t, err)
}

func TestIndexFileErrors(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	_, err := f.svc.IndexFile(ctx, "missing.md", "")
	require.ErrorIs(t, err, ErrFileNotFound)
	assert.Equal(t, "File not found: "+filepath.Join(f.vault, "missing.md"), err.Error())

	write(t, filepath.Join(f.vault, "a.docx"), "x")
	_, err = f.svc.IndexFile(ctx, "a.docx", "")
	require.ErrorIs(t, err, ErrUnsupported)
	assert.True(t, strings.HasPrefix(err.Error(), "Unsupported file type: .docx"), err.Error())

	write(t, filepath.Join(f.vault, "bad.pdf"), "%PDF-1.4 not a pdf")
	_, err = f.svc.IndexFile(ctx, "bad.pdf", "")
	require.ErrorIs(t, err, ErrReadFailed)
	assert.True(t, strings.HasPrefix(err.Error(), "Failed to extract content: "), err.Error())

	require.NoError(t, os.Mkdir(filepath.Join(f.vault, "sub.md"), 0o755))
	_, err = f.svc.IndexFile(ctx, "sub.md", "")
	require.ErrorIs(t, err, ErrReadFailed)

	_, err = f.svc.IndexFile(ctx, "  ", "")
	require.ErrorIs(t, err, ErrInvalid)
}

func TestIndexingSkipsUnchangedFilesAndReplacesChangedOnes(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	p := write(t, filepath.Join(f.vault, "guide.md"), guide)
	require.NoError(t, f.store.UpsertNotes(ctx, project, []core.Note{{ID: "guide.md", Title: "guide", Path: "guide.md", Keys: []string{"guide"}}}))

	first, err := f.svc.IndexFile(ctx, p, "")
	require.NoError(t, err)
	assert.False(t, first.Skipped)
	assert.Equal(t, "default", first.Namespace)
	require.Len(t, first.ChunkIDs, 3, "intro, authentication, storage")

	again, err := f.svc.IndexFile(ctx, p, "")
	require.NoError(t, err)
	assert.True(t, again.Skipped)
	assert.Equal(t, first.ChunkIDs, again.ChunkIDs, "the same bytes give the same IDs")

	moved, err := f.svc.IndexFile(ctx, p, "project:x")
	require.NoError(t, err)
	assert.False(t, moved.Skipped, "another namespace indexes again")

	write(t, p, guide+"\n## Extra\n\nA new section about caching.\n")
	changed, err := f.svc.IndexFile(ctx, p, "project:x")
	require.NoError(t, err)
	assert.False(t, changed.Skipped)
	require.Len(t, changed.ChunkIDs, 4)
	st, err := f.svc.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 4, st.TotalDocuments, "the old chunks were replaced, not kept")
	assert.Equal(t, []string{"project:x"}, st.Namespaces)

	hits, err := f.svc.Search(ctx, "OAuth login authentication", Filter{}, 1)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Equal(t, "Setup > Authentication", hits[0].HeaderPath)
	assert.Equal(t, "guide.md", hits[0].NoteID, "a vault note's chunks record the note")
	assert.Equal(t, p, hits[0].SourceFile)
	assert.Equal(t, 1, hits[0].ChunkIndex)
}

func TestIndexDirectory(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	write(t, filepath.Join(f.docs, "a.md"), guide)
	write(t, filepath.Join(f.docs, "b.txt"), "Plain text about gardening.\n\nTomatoes need sun.")
	write(t, filepath.Join(f.docs, "code.py"), "import os\n\ndef main():\n    pass\n")
	write(t, filepath.Join(f.docs, "broken.pdf"), "%PDF-1.4 garbage")
	write(t, filepath.Join(f.docs, "notes.docx"), "ignored")
	write(t, filepath.Join(f.docs, ".hidden", "h.md"), "# hidden")
	write(t, filepath.Join(f.docs, "sub", "deep.md"), "# Deep\nnested text")
	require.NoError(t, os.Symlink(write(t, filepath.Join(f.outside, "o.md"), "# out"), filepath.Join(f.docs, "link.md")))

	res, err := f.svc.IndexDirectory(ctx, f.docs, false, "docs")
	require.NoError(t, err)
	assert.Equal(t, 3, res.FilesIndexed, "a.md, b.txt, code.py; sub/ not entered")
	require.Len(t, res.FailedFiles, 1)
	assert.Equal(t, filepath.Join(f.docs, "broken.pdf"), res.FailedFiles[0].File)
	assert.Contains(t, res.FailedFiles[0].Error, "Failed to extract content")
	assert.Equal(t, 3+2+1, res.TotalChunks, "guide 3, text 1 (packed), python module + def")

	res, err = f.svc.IndexDirectory(ctx, f.docs, true, "docs")
	require.NoError(t, err)
	assert.Equal(t, 1, res.FilesIndexed, "only sub/deep.md is new")
	assert.Equal(t, 3, res.SkippedDuplicates)
	assert.Len(t, res.FailedFiles, 1)

	st, err := f.svc.Stats(ctx)
	require.NoError(t, err)
	for _, s := range st.SourceFiles {
		assert.NotContains(t, s, ".hidden")
		assert.NotContains(t, s, "link.md")
		assert.NotContains(t, s, "docx")
	}
	assert.Equal(t, 4, st.UniqueSources)

	_, err = f.svc.IndexDirectory(ctx, filepath.Join(f.docs, "nope"), true, "")
	require.ErrorIs(t, err, ErrFileNotFound)
	assert.True(t, strings.HasPrefix(err.Error(), "Directory not found: "), err.Error())
	_, err = f.svc.IndexDirectory(ctx, filepath.Join(f.docs, "a.md"), true, "")
	require.ErrorIs(t, err, ErrInvalid)
}

func TestSearchFiltersAndBudget(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	a := write(t, filepath.Join(f.vault, "a.md"), guide)
	b := write(t, filepath.Join(f.docs, "b.txt"), "Backups of the postgres database are verified weekly.")
	_, err := f.svc.IndexFile(ctx, a, "alpha")
	require.NoError(t, err)
	_, err = f.svc.IndexFile(ctx, b, "beta")
	require.NoError(t, err)

	_, err = f.svc.Search(ctx, " \t", Filter{}, 5)
	require.ErrorIs(t, err, ErrEmptyQuery)
	assert.Equal(t, "Query cannot be empty", err.Error())

	all, err := f.svc.Search(ctx, "postgres database backups", Filter{}, 50)
	require.NoError(t, err)
	require.Len(t, all, 4)
	for i := 1; i < len(all); i++ {
		assert.GreaterOrEqual(t, all[i-1].Score, all[i].Score)
	}
	for _, tc := range []struct {
		f    Filter
		want int
	}{
		{Filter{Namespace: "beta"}, 1},
		{Filter{Namespace: "alpha"}, 3},
		{Filter{SourceFile: a}, 3},
		{Filter{SourceFile: "a.md"}, 3}, // relative to the vault, as index_file
		{Filter{DocType: "document"}, 4},
		{Filter{DocType: "memory"}, 0},
		{Filter{Namespace: "alpha", SourceFile: b}, 0},
	} {
		hits, err := f.svc.Search(ctx, "postgres database backups", tc.f, 50)
		require.NoError(t, err)
		assert.Len(t, hits, tc.want, "%+v", tc.f)
		for _, h := range hits {
			if tc.f.Namespace != "" {
				assert.Equal(t, tc.f.Namespace, h.Namespace)
			}
		}
	}
	limited, err := f.svc.Search(ctx, "postgres", Filter{}, 2)
	require.NoError(t, err)
	assert.Len(t, limited, 2)

	// Budgets: a prefix of the ranking that fits, never more.
	for _, budget := range []int{1, 5, 20, 40, 3000} {
		r, err := f.svc.SearchWithBudget(ctx, "postgres database backups", budget)
		require.NoError(t, err)
		assert.LessOrEqual(t, r.TokensUsed, budget)
		assert.Equal(t, budget-r.TokensUsed, r.BudgetRemaining)
		assert.Equal(t, TotalTokens(r.Hits), r.TokensUsed)
		assert.Equal(t, len(all), len(r.Hits)+r.TruncatedCount)
		assert.Equal(t, r.TruncatedCount > 0, r.Truncated)
		for i, h := range r.Hits {
			assert.Equal(t, all[i].ID, h.ID, "budget %d keeps score order", budget)
		}
	}
	r, err := f.svc.SearchWithBudget(ctx, "postgres", 3000)
	require.NoError(t, err)
	assert.False(t, r.Truncated)
	_, err = f.svc.SearchWithBudget(ctx, "postgres", 0)
	require.ErrorIs(t, err, ErrInvalid)
}

func TestEstimateTokens(t *testing.T) {
	for text, want := range map[string]int{"": 0, "a": 1, "abcd": 1, "abcde": 2, "éééé": 1, strings.Repeat("x", 1000): 250} {
		assert.Equal(t, want, EstimateTokens(text), "%q", text)
	}
}

// fakeMemories stands in for the memory toolset.
type fakeMemories struct{}

func (fakeMemories) SearchMemories(_ context.Context, query, namespace string, limit int) ([]Hit, error) {
	return []Hit{{ID: "mem_1", Content: "User prefers postgres", Score: 0.99, Namespace: "global", DocType: DocTypeMemory}}, nil
}

func (fakeMemories) MemoryStats(context.Context) (MemoryStats, error) {
	return MemoryStats{Count: 45, GoldenRules: 5, Namespaces: []string{"global", "default"}}, nil
}

func TestMemoriesJoinSearchAndStatsAndSurviveClear(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	svc := f.service(t, f.emb, fakeMemories{})
	_, err := svc.IndexFile(ctx, write(t, filepath.Join(f.vault, "a.md"), guide), "")
	require.NoError(t, err)

	hits, err := svc.Search(ctx, "postgres", Filter{}, 2)
	require.NoError(t, err)
	require.Len(t, hits, 2)
	assert.Equal(t, "mem_1", hits[0].ID)
	hits, err = svc.Search(ctx, "postgres", Filter{DocType: "memory"}, 5)
	require.NoError(t, err)
	assert.Len(t, hits, 1)
	hits, err = svc.Search(ctx, "postgres", Filter{DocType: "document"}, 5)
	require.NoError(t, err)
	assert.Len(t, hits, 3)

	st, err := svc.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, &Stats{TotalDocuments: 3, UniqueSources: 1, SourceFiles: []string{filepath.Join(f.vault, "a.md")},
		Namespaces: []string{"default", "global"}, MemoryCount: 45, GoldenRuleCount: 5}, st)

	n, err := svc.Clear(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	st, err = svc.Stats(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.TotalDocuments)
	assert.Equal(t, 45, st.MemoryCount, "clear_index keeps memories")
}

func TestDeleteChunksAndFiles(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	a, err := f.svc.IndexFile(ctx, write(t, filepath.Join(f.vault, "a.md"), guide), "")
	require.NoError(t, err)
	_, err = f.svc.IndexFile(ctx, write(t, filepath.Join(f.vault, "b.txt"), "bee"), "")
	require.NoError(t, err)

	got, err := f.svc.DeleteChunks(ctx, []string{a.ChunkIDs[0], "chunk_missing"})
	require.NoError(t, err)
	assert.Equal(t, []string{a.ChunkIDs[0]}, got)
	got, err = f.svc.DeleteChunks(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, got)

	src, n, err := f.svc.DeleteFile(ctx, "a.md")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(f.vault, "a.md"), src)
	assert.Equal(t, 2, n)
	_, n, err = f.svc.DeleteFile(ctx, "/never/indexed.md")
	require.NoError(t, err)
	assert.Zero(t, n)

	// A deleted file is indexed again, not skipped.
	again, err := f.svc.IndexFile(ctx, "a.md", "")
	require.NoError(t, err)
	assert.False(t, again.Skipped)
}

// otherModel is the built-in model under another name: its vectors must
// not be compared with the built-in model's.
type otherModel struct{ core.Embedder }

func (otherModel) Model() string { return "other-model-v2" }

func TestAModelChangeEmbedsChunksAgain(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	_, err := f.svc.IndexFile(ctx, write(t, filepath.Join(f.vault, "a.md"), guide), "")
	require.NoError(t, err)

	svc := f.service(t, otherModel{f.emb}, nil)
	hits, err := svc.Search(ctx, "OAuth authentication", Filter{}, 5)
	require.NoError(t, err)
	assert.Len(t, hits, 3, "every chunk was embedded again with the new model")
	stale, err := f.store.StaleChunks(ctx, project, "other-model-v2", 10)
	require.NoError(t, err)
	assert.Empty(t, stale)
}

func TestChunksSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	vault := t.TempDir()
	p := write(t, filepath.Join(vault, "a.md"), guide)
	emb, err := builtin.New()
	require.NoError(t, err)

	open := func() (*memstore.Store, *Service) {
		st, err := memstore.Open(dir)
		require.NoError(t, err)
		svc, err := New(Config{Project: project, Store: st, Embedder: emb, Roots: []string{vault}, Vault: vault})
		require.NoError(t, err)
		return st, svc
	}
	st, svc := open()
	first, err := svc.IndexFile(t.Context(), p, "")
	require.NoError(t, err)
	require.NoError(t, st.Close(t.Context()))

	st, svc = open()
	defer st.Close(context.Background())
	again, err := svc.IndexFile(t.Context(), p, "")
	require.NoError(t, err)
	assert.True(t, again.Skipped, "the hash survived")
	hits, err := svc.Search(t.Context(), "nightly backups to object storage", Filter{}, 1)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Equal(t, first.ChunkIDs[2], hits[0].ID)
}

func TestOnlyRegularFilesAreRead(t *testing.T) {
	f := newFixture(t)
	fifo := filepath.Join(f.vault, "pipe.md")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	_, err := f.svc.IndexFile(t.Context(), fifo, "")
	require.ErrorIs(t, err, ErrReadFailed)
	assert.Contains(t, err.Error(), "not a regular file")
}

func TestASkippedFileAnswersItsChunksAsStored(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	p := write(t, filepath.Join(f.vault, "guide.md"), guide)
	first, err := f.svc.IndexFile(ctx, p, "")
	require.NoError(t, err)
	_, err = f.svc.DeleteChunks(ctx, first.ChunkIDs[:1])
	require.NoError(t, err)
	again, err := f.svc.IndexFile(ctx, p, "")
	require.NoError(t, err)
	assert.True(t, again.Skipped, "the file did not change")
	assert.Equal(t, first.ChunkIDs[1:], again.ChunkIDs, "the chunks that are left, in order")
}

func TestBigDirectoriesShowProgress(t *testing.T) {
	f := newFixture(t)
	for i := range progressMinFiles {
		write(t, filepath.Join(f.docs, "big", fmt.Sprintf("f%02d.txt", i)), fmt.Sprintf("file number %d", i))
	}
	write(t, filepath.Join(f.docs, "small", "one.txt"), "one")
	var out strings.Builder
	svc, err := New(Config{Project: project, Store: f.store, Embedder: f.emb, Roots: []string{f.docs}, Progress: &out})
	require.NoError(t, err)

	_, err = svc.IndexDirectory(t.Context(), filepath.Join(f.docs, "small"), true, "")
	require.NoError(t, err)
	assert.Empty(t, out.String(), "no bar for a small directory")
	res, err := svc.IndexDirectory(t.Context(), filepath.Join(f.docs, "big"), true, "")
	require.NoError(t, err)
	assert.Equal(t, progressMinFiles, res.FilesIndexed)
	assert.Contains(t, out.String(), fmt.Sprintf("/%d)", progressMinFiles), "a bar counting the files")
}

func TestRareExactWordsRankFirst(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	for name, text := range map[string]string{
		"kimchi.txt":   "Kimchi: salt the napa cabbage overnight, rinse, then pack it with the chili paste and leave it to ferment.",
		"party.txt":    "Plan the birthday party: invite friends, order a cake, and set up the games in the garden.",
		"conflict.txt": "When a conflict escalates at work, pause, listen to both sides and agree on the next step together.",
		"speech.txt":   "A wedding speech should be short, warm and personal, with one funny story about the couple.",
	} {
		_, err := f.svc.IndexFile(ctx, write(t, filepath.Join(f.docs, name), text), "")
		require.NoError(t, err)
	}
	hits, err := f.svc.Search(ctx, "kimchi fermentation", Filter{}, 3)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, filepath.Join(f.docs, "kimchi.txt"), hits[0].SourceFile, "the keyword half finds the rare word")
	for _, h := range hits {
		assert.True(t, h.Score >= 0 && h.Score <= 1)
	}
}
