package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/internal/heaptune"
	"github.com/vaultgraph/vaultgraph/internal/ownerserve"
	"github.com/vaultgraph/vaultgraph/metrics"
	"github.com/vaultgraph/vaultgraph/owner"
)

func newSyncCommand(s streams) *cobra.Command {
	var watch, embed bool
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

Without --watch, sync exits once the graph is synced: notes are searchable
by keywords and by the vectors they have, and a serve (or sync --watch)
embeds the rest with the transformer model in the background. --embed waits
for that instead: every note without a current vector is embedded before
sync exits, with a progress bar on a terminal and progress lines otherwise.
It is resumable: each batch is stored as it is embedded, and a sync --embed
stopped by Ctrl-C goes on from there the next time. Ctrl-C stops a sync at
the next batch, keeps what was written and exits 1; a second Ctrl-C ends it
at once.

--metrics-addr (with --watch) serves Prometheus metrics at ADDR/metrics, as
serve does: the sync runs, notes and lag, the store's health, statements and
connection pool.

A store that is down does not stop --watch: changes are queued and applied
with backoff once it is back. Without --watch, sync exits 1 when the store
cannot be written.

Each vault is a project of its own in the store, named by the identity kept
in its .vaultgraph/vault.json (created on first use); a sync never reads or
deletes another project's notes. --adopt KEY makes this vault the store's
project KEY instead: to keep the notes, memories and history an older
vaultgraph stored under "default", or those of a vault that was moved or
copied. vaultgraph refuses to start, saying so, when two vaults would share
a project.

The store records the host and vault path of each project's last full sync. A
sync from another host or path that would delete notes of the project refuses,
writes nothing and names them: two machines whose vaults share an identity but
not their notes would otherwise erase each other's. --force (or the setting
sync.allow_foreign_deletes) lets this vault win.`,
		Example: `  vaultgraph sync --vault ~/notes
  vaultgraph sync --store neo4j --vault /srv/vault --watch`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, logger, err := loadConfig(cmd, s, true)
			if err != nil {
				return err
			}
			return runSyncWith(cmd.Context(), cfg, logger, syncOptions{watch: watch, embed: embed, adopt: adopt})
		},
	}
	cmd.Flags().BoolVar(&watch, "watch", false, "keep running and mirror changes as files change")
	config.AddFlags(cmd.Flags(), config.FlagSync)
	cmd.Flags().BoolVar(&embed, "embed", false, "also embed every note with the embedding model before exiting (resumable; serve does it in the background)")
	cmd.Flags().StringVar(&adopt, "adopt", "", "make this vault the store's project with this key (an older vaultgraph's \"default\", or a moved vault's)")
	return cmd
}

// syncOptions are the sync command's flags.
type syncOptions struct {
	watch bool   // --watch
	embed bool   // --embed
	adopt string // --adopt

	metrics *metrics.Metrics // served at --metrics-addr with --watch; nil: none
}

// runSync mirrors the vault once, then keeps watching when asked to.
func runSync(ctx context.Context, cfg *config.Config, logger *slog.Logger, watch bool, adopt string) error {
	return runSyncWith(ctx, cfg, logger, syncOptions{watch: watch, adopt: adopt})
}

// runSyncWith is runSync with every flag of the sync command.
func runSyncWith(ctx context.Context, cfg *config.Config, logger *slog.Logger, so syncOptions) error {
	watch, adopt := so.watch, so.adopt
	if watch && cfg.Metrics.Addr != "" {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		so.metrics = metrics.New()
		if _, err := so.metrics.Serve(ctx, config.MetricsAddr(cfg.Metrics.Addr), cfg.Metrics.Token.Reveal(), logger); err != nil {
			return err
		}
	}
	if shared(cfg) {
		return runSyncShared(ctx, cfg, logger, so)
	}
	appOpts := []appOption{withAdopt(adopt)}
	if so.metrics != nil {
		appOpts = append(appOpts, withObserver(so.metrics))
	}
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
				if ctx.Err() != nil {
					return errInterrupted
				}
				return fmt.Errorf("sync %s: %w", m.Root(), err)
			}
		}
		if err := a.projects.Sync(ctx); err != nil {
			if ctx.Err() != nil {
				return errInterrupted
			}
			return fmt.Errorf("sync project records: %w", err)
		}
		if so.embed {
			return a.embedAll(ctx)
		}
		return nil
	}
	if err := a.syncVault(ctx); err != nil {
		return err
	}
	a.firstVectors(ctx)
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
func runSyncShared(ctx context.Context, cfg *config.Config, logger *slog.Logger, so syncOptions) error {
	watch, adopt := so.watch, so.adopt
	var syncErr error
	failed := make(chan struct{})
	opts := ownerOptions{watch: watch, index: watch, warm: watch, oneShot: !watch, adopt: adopt, metrics: so.metrics, fail: func(err error) { syncErr = err; close(failed) }}
	if watch {
		lock, err := ownerserve.WaitLock(ctx, stateDirOf(cfg), logger)
		if err != nil {
			return err
		}
		own, err := becomeOwner(ctx, cfg, logger, lock, opts)
		if err != nil {
			lock.Release()
			return err
		}
		defer own.Shutdown(context.WithoutCancel(ctx))
		select {
		case <-ctx.Done():
			return nil
		case <-failed:
			return syncErr
		}
	}
	heaptune.OneShotSync(ctx, logger) // this process exits after the sync
	c := newConnector(cfg, logger, opts)
	defer c.Stop(context.WithoutCancel(ctx))
	own, _, w, err := c.Find(ctx, owner.KindSync, selectionOf(cfg))
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
		if so.embed {
			logger.Info("semantic: the vault's owning process embeds its notes in the background; vaultgraph status shows how far it is", "pid", w.PID)
		}
		return nil
	}
	// Ctrl-C: the deferred stop ends the sync at its next batch and keeps
	// what was written.
	select {
	case <-own.App().firstSync.Done():
	case <-ctx.Done():
		return errInterrupted
	}
	if syncErr != nil {
		return syncErr
	}
	if so.embed {
		return own.App().embedAll(ctx)
	}
	return nil
}
