package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/owner"
)

func newSyncCommand(s streams) *cobra.Command {
	var watch bool
	var adopt string
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Mirror the vault into the store, once or continuously",
		Long: `sync scans the vault and brings the store in line with it: new and changed
notes are written, deleted notes removed, links resolved. The vault is the source
of truth: deleting the store and running sync gives back the same graph.

With --watch it keeps running after the first pass and mirrors every change as
files are created, edited, moved or deleted: the worker to run beside a shared
"serve --http". (The watch key of the configuration applies to serve only.)

With the embedded store, when another vaultgraph process owns the vault's store,
sync asks it to sync (--adopt is then refused); sync --watch waits to own the store,
a standby that takes over when the owner exits. A sync without --watch keeps its
memory under a budget of 512 MiB, more only when the vault's live data needs it
(GOGC or GOMEMLIMIT in the environment replace this).

A store that is down does not stop --watch: changes are queued and applied
with backoff once it is back. Without --watch, sync exits 1 when the store
cannot be written.

Each vault is a project of its own in the store, named by the identity kept
in its .vaultgraph/vault.json (created on first use); a sync never reads or
deletes another project's notes. --adopt KEY makes this vault the store's
project KEY instead: to keep the notes, memories and history an older
vaultgraph stored under "default", or those of a vault that was moved or
copied. vaultgraph refuses to start, saying so, when two vaults would share
a project.`,
		Example: `  vaultgraph sync --vault ~/notes
  vaultgraph sync --store neo4j --vault /srv/vault --watch`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, logger, err := loadConfig(cmd, s, true)
			if err != nil {
				return err
			}
			return runSync(cmd.Context(), cfg, logger, watch, adopt)
		},
	}
	cmd.Flags().BoolVar(&watch, "watch", false, "keep running and mirror changes as files change")
	cmd.Flags().StringVar(&adopt, "adopt", "", "make this vault the store's project with this key (an older vaultgraph's \"default\", or a moved vault's)")
	return cmd
}

// runSync mirrors the vault once, then keeps watching when asked to.
func runSync(ctx context.Context, cfg *config.Config, logger *slog.Logger, watch bool, adopt string) error {
	if shared(cfg) {
		return runSyncShared(ctx, cfg, logger, watch, adopt)
	}
	appOpts := []appOption{withAdopt(adopt)}
	if !watch {
		appOpts = append(appOpts, withOneShot())
	}
	a, err := openApp(ctx, cfg, logger, appOpts...)
	if err != nil {
		return err
	}
	defer a.close(ctx)
	if !watch {
		for _, m := range a.mirrors() {
			if _, err := m.Sync(ctx); err != nil { // the mirror logs its summary
				return fmt.Errorf("sync %s: %w", m.Root(), err)
			}
		}
		if err := a.projects.Sync(ctx); err != nil {
			return fmt.Errorf("sync project records: %w", err)
		}
		a.indexNow(ctx, 0, true)
		return nil
	}
	if err := a.syncVault(ctx); err != nil {
		return err
	}
	a.indexNow(ctx, firstPassBudget, false)
	indexCtx, stopIndexer := context.WithCancel(ctx)
	var indexer sync.WaitGroup
	indexer.Go(func() { a.runIndexer(indexCtx) })
	defer func() { stopIndexer(); indexer.Wait() }()
	return a.watch(ctx)
}

// runSyncShared syncs a store shared with other processes. Without
// --watch: the owning process syncs when one runs, else this one does as
// the owner (others connecting meanwhile are served, and take over when it
// exits). With --watch this process owns the store and watches the vault,
// waiting for the lock while another process holds it.
func runSyncShared(ctx context.Context, cfg *config.Config, logger *slog.Logger, watch bool, adopt string) error {
	var syncErr error
	failed := make(chan struct{})
	opts := ownerOptions{watch: watch, index: watch, warm: watch, oneShot: !watch, adopt: adopt, fail: func(err error) { syncErr = err; close(failed) }}
	if watch {
		lock, err := waitLock(ctx, stateDirOf(cfg), logger)
		if err != nil {
			return err
		}
		own, err := becomeOwner(ctx, cfg, logger, lock, opts)
		if err != nil {
			lock.Release()
			return err
		}
		defer own.shutdown(context.WithoutCancel(ctx))
		select {
		case <-ctx.Done():
			return nil
		case <-failed:
			return syncErr
		}
	}
	boundSyncHeap(ctx, logger) // this process exits after the sync
	c := &connector{cfg: cfg, logger: logger, opts: opts}
	defer c.stop(context.WithoutCancel(ctx))
	own, _, w, err := c.find(ctx, owner.KindSync)
	if err != nil {
		return err
	}
	if own == nil {
		if adopt != "" {
			return fmt.Errorf("--adopt: vaultgraph process %d owns this vault's store; stop it (and every other vaultgraph on this vault) first", w.PID)
		}
		if strings.HasPrefix(w.Detail, "sync failed") {
			return fmt.Errorf("the vault's owning process (pid %d): %s", w.PID, w.Detail)
		}
		logger.Info(w.Detail, "pid", w.PID)
		return nil
	}
	<-own.firstSync.Done()
	if syncErr != nil {
		return syncErr
	}
	own.a.indexNow(ctx, 0, true)
	return nil
}
