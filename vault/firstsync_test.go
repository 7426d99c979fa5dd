package vault

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/internal/testwait"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// Issue 24: with Config.FirstSyncWait a write that comes before the first
// sync waits for it, reporting progress, and writes once it is done; one
// whose wait runs out is refused with a provider error, nothing written.
func TestWriteWaitsForTheFirstSync(t *testing.T) {
	t.Run("written after the sync", func(t *testing.T) {
		root := writeVault(t, map[string]string{"a.md": "A"})
		m := newTestMirror(t, root, memstore.New(), func(c *Config) { c.FirstSyncWait = time.Hour })
		waiting := make(chan struct{}, 1)
		ctx := core.WithProgress(t.Context(), func(_, _ int, msg string) {
			select {
			case waiting <- struct{}{}:
			default:
			}
		})
		done := make(chan error, 1)
		go func() {
			_, err := m.Writer().Create(ctx, core.NewNote{Title: "b", Content: "links [[a]]"})
			done <- err
		}()
		testwait.Recv(t, waiting, "the write's report that it waits")
		_, err := m.Sync(t.Context())
		require.NoError(t, err)
		require.NoError(t, testwait.Recv(t, done, "the waiting write"))
		_, err = m.Writer().Create(t.Context(), core.NewNote{Title: "c"})
		require.NoError(t, err)
	})
	t.Run("refused when the wait runs out", func(t *testing.T) {
		root := writeVault(t, map[string]string{"a.md": "A"})
		m := newTestMirror(t, root, memstore.New(), func(c *Config) { c.FirstSyncWait = time.Millisecond })
		_, err := m.Writer().Create(context.Background(), core.NewNote{Title: "b"})
		require.True(t, core.IsProviderError(err), "err %v", err)
		require.True(t, errors.Is(err, errStillSyncing), "err %v", err)
		require.NoFileExists(t, root+"/b.md")
	})
}
