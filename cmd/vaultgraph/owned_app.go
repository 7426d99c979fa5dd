package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/internal/heaptune"
	"github.com/vaultgraph/vaultgraph/internal/ownerserve"
	"github.com/vaultgraph/vaultgraph/metrics"
	"github.com/vaultgraph/vaultgraph/owner"
	"github.com/vaultgraph/vaultgraph/resources"
	"github.com/vaultgraph/vaultgraph/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// Many processes, one vault (issue 24): with the embedded store, one
// process per state folder owns the store and the others reach it through
// the folder's socket. internal/ownerserve serves the socket and finds the
// owner (package owner holds the lock and the socket); this file wires the
// app into it. docs/ARCHITECTURE.md describes the design.

// shared reports whether cfg's store is shared through an owning process:
// the embedded store on unix systems (elsewhere a second process is
// refused, as before).
func shared(cfg *config.Config) bool {
	return cfg.Store != config.StoreNeo4j && runtime.GOOS != "windows"
}

// stateDirOf is the embedded store's folder of cfg's primary vault.
func stateDirOf(cfg *config.Config) string {
	return config.VaultStateDir(cfg.StateDir, cfg.ServedProjects()[0].Path)
}

// ownerOptions are what a command asks of the process it owns the store
// as.
type ownerOptions struct {
	watch      bool               // watch the vault after the first sync
	index      bool               // keep embeddings current in the background (serve)
	metrics    *metrics.Metrics   // nil: none
	clientLogs *server.ClientLogs // nil: a new one
	fail       func(error)        // a first sync that failed (not for a store that is down)
	adopt      string             // sync --adopt
	warm       bool               // prepare the store's live writes after the first sync (long-lived owners)
	oneShot    bool               // the process exits after its first sync (sync without --watch, call: withOneShot)
}

// ownerRole is this process as the owner of a state folder's store.
type ownerRole = ownerserve.Role[*ownedApp]

// connector finds the vault's store for a process (ownerserve.Connector).
type connector = ownerserve.Connector[*ownedApp]

// ownedApp is the app as its owner serves it (ownerserve.App): the first
// sync's state, the client logs and metrics every MCP server of the owner
// shares, and what the command asked of the owner.
type ownedApp struct {
	*app
	base      baseToolsets // the tools every selection picks from; optionalTools adds those a selection wants
	firstSync *server.FirstSync
	logs      *server.ClientLogs
	metrics   *metrics.Metrics
	opts      ownerOptions
}

var _ ownerserve.App = (*ownedApp)(nil)

// becomeOwner opens the app as lock's holder (nil: no sharing), starts the
// first sync and, when lock is set, serves the state folder's socket.
func becomeOwner(ctx context.Context, cfg *config.Config, logger *slog.Logger, lock *owner.Lock, opts ownerOptions) (*ownerRole, error) {
	if opts.clientLogs == nil {
		opts.clientLogs = server.NewClientLogs()
	}
	if opts.warm { // a long-lived owner
		heaptune.LongLived(logger)
	}
	appOpts := []appOption{withFirstSyncWait(firstSyncWriteWait), withAdopt(opts.adopt), withLive(opts.watch)}
	if opts.metrics != nil {
		appOpts = append(appOpts, withObserver(opts.metrics))
	}
	if opts.oneShot {
		appOpts = append(appOpts, withOneShot())
	}
	a, err := openApp(ctx, cfg, logger, appOpts...)
	if err != nil {
		return nil, err
	}
	if _, _, err := a.optionalTools(a.selection()); err != nil { // the configuration's own, made now: its errors stop the start
		a.close(ctx)
		return nil, err
	}
	oa := &ownedApp{app: a, base: a.baseTools(), firstSync: server.NewFirstSync(), logs: opts.clientLogs, metrics: opts.metrics, opts: opts}
	return ownerserve.Start(ctx, oa, ownerserve.Options{Lock: lock, Version: versionNumber(), Logger: logger})
}

// newConnector is a connector for cfg's vault: as the owner, this process
// is what becomeOwner makes with opts.
func newConnector(cfg *config.Config, logger *slog.Logger, opts ownerOptions) *connector {
	var vaults []string
	for _, p := range cfg.ServedProjects() {
		vaults = append(vaults, p.Path)
	}
	return &connector{
		Client: ownerserve.Client{Dir: stateDirOf(cfg), Vaults: vaults, Version: versionNumber()},
		Logger: logger,
		Become: func(ctx context.Context, lock *owner.Lock) (*ownerRole, error) {
			return becomeOwner(ctx, cfg, logger, lock, opts)
		},
	}
}

// Server makes the MCP server of a tool selection. Every server of the
// owner shares the app, the first sync's state, the client logs and the
// resource subscriptions.
func (o *ownedApp) Server(sel tools.Selection) (*mcpserver.MCPServer, error) {
	docs, mem, err := o.optionalTools(sel) // sel's own, not the owner's configuration's
	if err != nil {
		return nil, err
	}
	list, err := tools.Select(o.base.with(docs, mem), sel)
	if err != nil {
		return nil, err
	}
	a := o.app
	return server.New(server.Options{
		Version: versionNumber(), Tools: list, Logger: a.logger, Metrics: o.metrics, ClientLogs: o.logs, FirstSync: o.firstSync,
		Vault: resources.Deps{Project: a.primary.Key, Store: a.store, Files: a.mirror.Writer(), Logger: a.logger, Changes: a.changes,
			Attachments: a.mirror.Writer()},
	}), nil
}

// Selection is the configuration's tool selection.
func (o *ownedApp) Selection() tools.Selection { return o.selection() }

// Serves reports whether vault is the primary vault.
func (o *ownedApp) Serves(vault string) bool {
	return vault == o.mirror.Root() || vault == o.cfg.ServedProjects()[0].Path
}

// Run is the owner's background work: the first sync, then the indexer
// and the watcher, until ctx ends.
func (o *ownedApp) Run(ctx context.Context) {
	var background sync.WaitGroup
	defer background.Wait()
	opts := o.opts
	// A store that holds the vault's notes from an earlier run answers
	// reads worth having meanwhile (server.FirstSync).
	restoreGC := func() {}
	if n, err := o.store.CountNotes(ctx, o.primary.Key); err == nil && n > 0 {
		o.firstSync.Warm()
		if opts.warm {
			restoreGC = heaptune.WarmStart()
		}
	}
	err := o.syncVault(ctx)
	restoreGC()
	if err != nil {
		if opts.fail != nil && ctx.Err() == nil {
			opts.fail(err) // before Finish: a caller waiting on Done sees it
		}
		o.firstSync.Finish()
		return
	}
	// Reads answer once the graph is synced: the first pass of vectors
	// follows in the background, and only a search waits for it.
	o.firstSync.Finish()
	if opts.warm {
		heaptune.FollowLiveHeap(ctx, o.logger)
		background.Go(func() { o.warmWrites(ctx) })
	}
	background.Go(func() { o.followOthers(ctx) })
	if opts.index {
		background.Go(func() {
			o.firstVectors(ctx)
			o.runIndexer(ctx)
		})
	}
	if opts.watch {
		if err := o.watch(ctx); err != nil {
			o.logger.Error("vault watcher stopped", "err", err)
		}
	}
}

// followInterval is how often a process serving a Neo4j store looks for
// the notes other processes wrote (one indexed read of a few db hits).
const followInterval = 500 * time.Millisecond

// followOthers tells the resource subscribers and the web view of the
// primary project's notes that other processes write (replicas on the same
// Neo4j behind a balancer, a sync --watch worker), until ctx ends: their
// writes reach Neo4j without passing through this process's store wrappers
// (Changes.Store, Feed.Store). Nothing for a store that only this process
// writes (memstore).
func (o *ownedApp) followOthers(ctx context.Context) {
	f, ok := o.store.(core.ChangeFollower)
	if !ok {
		return
	}
	project := o.primary.Key
	f.FollowChanges(ctx, project, followInterval, func(ids []string) {
		// Another process logs its changes too (recent_changes'), in a
		// transaction of its own, about when it writes the notes.
		defer o.viewFeed.Logged()
		if ids == nil {
			o.changes.ChangedUnknown()
			o.viewFeed.ChangedUnknown()
			return
		}
		exist, err := o.store.ResolveTitles(ctx, project, ids)
		if err != nil {
			o.logger.Debug("other processes' writes: the store failed; telling subscribers of all of them", "err", err)
			o.changes.ChangedUnknown()
			o.viewFeed.ChangedUnknown()
			return
		}
		var written, deleted []string
		for _, id := range ids {
			if _, ok := exist[id]; ok {
				written = append(written, id)
			} else {
				deleted = append(deleted, id)
			}
		}
		for _, c := range []struct {
			ids     []string
			deleted bool
		}{{written, false}, {deleted, true}} {
			if len(c.ids) > 0 {
				o.changes.Changed(c.ids, c.deleted)
				o.viewFeed.Changed(c.ids, c.deleted)
			}
		}
	})
}

// SyncNow brings the store in line with the vault now (a sync another
// process asked for) and says what it did.
func (o *ownedApp) SyncNow() string {
	<-o.firstSync.Done()
	ctx := context.Background()
	for _, m := range o.mirrors() {
		st, err := m.Sync(ctx)
		if err != nil {
			return "sync failed: " + err.Error()
		}
		o.logger.Info("synced for another process", "written", st.Written, "deleted", st.Deleted)
	}
	return fmt.Sprintf("synced by the vault's owning process (pid %d)", os.Getpid())
}

// Close closes the app.
func (o *ownedApp) Close(ctx context.Context) { o.close(ctx) }

// afterFirstSync runs f in own's background once the first sync is done
// (not at all when the owner stops first).
func afterFirstSync(own *ownerRole, f func(ctx context.Context)) {
	own.Go(func(ctx context.Context) {
		select {
		case <-own.App().firstSync.Done():
			f(ctx)
		case <-ctx.Done():
		}
	})
}
