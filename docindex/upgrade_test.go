package docindex

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/internal/lowprio"
)

// slowModel stands for the transformer beside the static table: another
// model name, and a count of the texts it embedded in the background
// (lowprio) and in the foreground (queries).
type slowModel struct {
	core.Embedder
	background, foreground atomic.Int64
}

func (*slowModel) Model() string { return "slow-model" }

func (s *slowModel) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if lowprio.Background(ctx) {
		s.background.Add(int64(len(texts)))
	} else {
		s.foreground.Add(int64(len(texts)))
	}
	return s.Embedder.Embed(ctx, texts)
}

// Issue 49.6: with a fast tier, index_directory stores every chunk with
// the fast tier's vector (no transformer work before it answers), a search
// finds them at once, and the upgrades give them the model's vectors in
// the background, at the lowest priority.
func TestFastTierChunksAreSearchableAtOnceAndUpgraded(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	slow := &slowModel{Embedder: f.emb}
	svc, err := New(Config{Project: project, Store: f.store, Embedder: slow, Fast: f.emb, Roots: []string{f.vault, f.docs}, Vault: f.vault, Notes: f.store})
	require.NoError(t, err)

	write(t, filepath.Join(f.docs, "guide.md"), guide)
	write(t, filepath.Join(f.docs, "notes.txt"), "Release checklist: tag the commit, build the image, publish the notes.")
	res, err := svc.IndexDirectory(ctx, f.docs, true, "")
	require.NoError(t, err)
	require.Equal(t, 2, res.FilesIndexed)
	assert.Zero(t, slow.background.Load()+slow.foreground.Load(), "indexing ran the slow model")

	hits, err := svc.Search(ctx, "OAuth authentication", Filter{}, 3)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Contains(t, hits[0].Content, "OAuth", "a fast-tier chunk is found at once")

	n, err := svc.Upgrade(ctx)
	require.NoError(t, err)
	assert.Equal(t, res.TotalChunks, n)
	assert.EqualValues(t, n, slow.background.Load(), "upgrades run at the lowest priority")
	stale, err := f.store.StaleChunks(ctx, project, "slow-model", 10)
	require.NoError(t, err)
	assert.Empty(t, stale)
	hits, err = svc.Search(ctx, "OAuth authentication", Filter{}, 3)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Contains(t, hits[0].Content, "OAuth", "an upgraded chunk is found")

	// RunUpgrades hears of new chunks.
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); svc.RunUpgrades(runCtx) }()
	defer func() { stop(); <-done }()
	_, err = svc.IndexFile(ctx, write(t, filepath.Join(f.docs, "more.md"), "# More\n\nKubernetes ingress routes traffic."), "")
	require.NoError(t, err)
	deadline := time.Now().Add(time.Minute)
	for {
		stale, err := f.store.StaleChunks(ctx, project, "slow-model", 10)
		require.NoError(t, err)
		if len(stale) == 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "RunUpgrades did not upgrade a new chunk within a minute")
		time.Sleep(10 * time.Millisecond)
	}
}
