package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/activity"
	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/docindex"
	"github.com/vaultgraph/vaultgraph/entity"
	"github.com/vaultgraph/vaultgraph/internal/vaultidentity"
	"github.com/vaultgraph/vaultgraph/kb"
	"github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/neo4jstore"
	"github.com/vaultgraph/vaultgraph/noteedit"
	"github.com/vaultgraph/vaultgraph/resources"
	"github.com/vaultgraph/vaultgraph/tools"
	edittools "github.com/vaultgraph/vaultgraph/tools/edit"
	"github.com/vaultgraph/vaultgraph/tools/entities"
	"github.com/vaultgraph/vaultgraph/tools/graph"
	kbtools "github.com/vaultgraph/vaultgraph/tools/kb"
	memtools "github.com/vaultgraph/vaultgraph/tools/memory"
	"github.com/vaultgraph/vaultgraph/vault"
	"github.com/vaultgraph/vaultgraph/view"
)

// app is what the serving commands share: the store, the vault mirrors
// that keep it equal to the vaults, and the services the tools call. The
// graph and kb tools act in the primary project (the first one served);
// the entity tools in any served project.
type app struct {
	cfg      *config.Config
	logger   *slog.Logger
	store    core.StoreProvider
	mirror   *vault.Mirror   // the primary project's
	others   []*vault.Mirror // the other projects', in configuration order
	graph    *core.GraphService
	kb       *kb.Service // knowledge bases of the primary project's vault
	primary  core.Project
	projects *core.ProjectCatalog
	search   search          // semantic search of the primary project; zero without an embedding provider
	memories *memory.Service // spec 004's memories of the primary project; see memoryService
	// lazyMu guards memories and docs, made at the first selection that
	// wants them (optionalTools; the owner's clients select their own).
	lazyMu   sync.Mutex
	docs     *docindex.Service  // the document index, once documentTools made it; nil otherwise
	changes  *resources.Changes // the primary project's note changes, for resource subscriptions
	viewFeed *view.Feed         // the same changes, for the web view
	activity *activity.Recorder // the primary project's change log writer (recent_changes)
}

// vectorCache maps neo4j.vector_cache (0: none) onto
// neo4jstore.Config.VectorCache (0: the default, negative: none).
func vectorCache(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// openStore opens the configured store: the embedded one in the state
// directory, or Neo4j.
// obs, when not nil, hears of the Neo4j store's statements and health.
func openStore(ctx context.Context, cfg *config.Config, logger *slog.Logger, obs neo4jstore.Observer) (core.StoreProvider, error) {
	switch cfg.Store {
	case config.StoreNeo4j:
		// Lazy: a Neo4j that is down at start (not one that refuses us)
		// does not stop the process; tools answer PROVIDER_ERROR and
		// changes queue until it answers, as when it goes down later.
		nc := neo4jConfig(cfg, logger)
		nc.Lazy = true
		nc.Observer = obs
		s, err := neo4jstore.Open(ctx, nc)
		if err != nil {
			return nil, fmt.Errorf("open neo4j store at %s: %w", cfg.Neo4j.URI, err)
		}
		return s, nil
	default:
		dir := config.VaultStateDir(cfg.StateDir, cfg.ServedProjects()[0].Path)
		s, err := memstore.Open(dir, memstore.WithLogger(logger))
		if err != nil {
			return nil, fmt.Errorf("open embedded store in %s: %w", dir, err)
		}
		return s, nil
	}
}

// appOptions are what some commands ask of openApp.
type appOptions struct {
	adopt    string             // sync --adopt: make the vault this project (see identify)
	observer vault.SyncObserver // hears of the mirrors' writes (metrics); nil: none
	// firstSyncWait bounds a write's wait for the first sync (serve); 0:
	// it waits as long as the sync takes.
	firstSyncWait time.Duration
	live          bool // the watcher follows the first sync (vault.Config.Live)
	oneShot       bool // the process exits after its sync (withOneShot)
}

type appOption func(*appOptions)

// withAdopt makes the primary vault the store's project with key.
func withAdopt(key string) appOption { return func(o *appOptions) { o.adopt = key } }

// withObserver gives the vault mirrors a SyncObserver (serve's metrics).
func withObserver(obs vault.SyncObserver) appOption {
	return func(o *appOptions) { o.observer = obs }
}

// withLive says that the vaults are watched after their first sync.
func withLive(live bool) appOption { return func(o *appOptions) { o.live = live } }

// withFirstSyncWait lets a write wait for the first sync at most d, then
// fail with a provider error (see vault.Config.FirstSyncWait).
func withFirstSyncWait(d time.Duration) appOption {
	return func(o *appOptions) { o.firstSyncWait = d }
}

// openApp opens the store and the vault mirror and builds the services.
// Nothing is synced yet: see syncVault.
func openApp(ctx context.Context, cfg *config.Config, logger *slog.Logger, options ...appOption) (*app, error) {
	var opts appOptions
	for _, o := range options {
		o(&opts)
	}
	b := currentBuild()
	logger.Info("vaultgraph starting", "version", b.Version, "commit", b.Commit, "go", b.Go, "store", cfg.Store)
	var storeObs neo4jstore.Observer
	if o, ok := opts.observer.(neo4jstore.Observer); ok {
		storeObs = o
	}
	store, err := openStore(ctx, cfg, logger, storeObs)
	if err != nil {
		return nil, err
	}
	if opts.oneShot {
		prepareOneShot(store)
	}
	served := cfg.ServedProjects()
	if err := vaultidentity.Identify(ctx, cfg, served, store, opts.adopt, logger); err != nil {
		_ = store.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	sem, err := newSearch(cfg, served[0].Key, store, config.VaultStateDir(cfg.StateDir, served[0].Path), opts.oneShot, logger)
	if err != nil {
		_ = store.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	a := &app{cfg: cfg, logger: logger, store: store, search: sem, changes: resources.NewChanges(), viewFeed: view.NewFeed()}
	a.changes.SetMaxSubscriptions(cfg.Resources.MaxSubscriptions)
	var projects []core.Project
	for i, pc := range served {
		p := projectOf(pc)
		projects = append(projects, p)
		// Notes reach the store through the entity annotator, so each
		// carries its entity (spec 003); invalid entity values are logged
		// and go to the warnings of the call that wrote the note.
		// The primary project's notes also reach the semantic indexer.
		var target core.GraphStore = store
		if i == 0 {
			// The primary project's writes also tell resource subscribers
			// and the web view.
			target = a.changes.Store(a.viewFeed.Store(sem.mirrorStore(store)))
		}
		// Every project keeps its change log, whether or not the edit
		// toolset is served: whichever process sees a change (a server,
		// a sync worker) logs it, and recent_changes reads them all.
		rec := activity.NewRecorder(p.Key, store, logger.With("project", p.Key))
		if !cfg.RecordActor {
			rec.ForgetActors()
		}
		m, err := vault.NewMirror(vault.Config{
			Root:      pc.Path,
			Project:   p.Key,
			Store:     entity.NewAnnotator(target, entity.Options{TypeKey: cfg.Entities.TypeKey, Entities: store}, entityWarnings(logger, p.Key)),
			Stamper:   stamperOf(store),
			Origins:   store,
			Ignore:    cfg.Ignore,
			FileNames: cfg.Naming.FileName,
			Logger:    logger.With("project", p.Key),
			LintLog:   filepath.Join(config.VaultStateDir(cfg.StateDir, pc.Path), "lint-logged"),
			Observer:  opts.observer,
			Changes:   logged(rec.Record, a.viewFeed, i == 0),

			FirstSyncWait: opts.firstSyncWait,
			Live:          opts.live,
			StagedBatch:   stagedBatch(cfg.Store),

			AllowForeignDeletes: cfg.AllowForeignDeletes,
		})
		if err != nil {
			_ = store.Close(context.WithoutCancel(ctx))
			return nil, fmt.Errorf("open vault %s: %w", pc.Path, err)
		}
		if i == 0 {
			a.mirror, a.primary, a.activity = m, p, rec
		} else {
			a.others = append(a.others, m)
		}
	}
	a.projects = core.NewProjectCatalog(store, projects)
	a.kb, err = kb.New(kb.Config{Root: a.mirror.Root(), Files: a.mirror.Writer(), Logger: logger})
	if err != nil {
		_ = store.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("knowledge bases in %s: %w", a.mirror.Root(), err)
	}
	// The graph tools' writes inside a knowledge base's folder pass its
	// folder constraints, as the kb tools' do.
	// get_node lists a note's unresolved links as the vault knows them.
	graphOpts := append(sem.graphOptions(), core.WithUnresolved(a.mirror.Writer()))
	a.graph = core.NewGraphService(a.primary.Key, store, a.mirror.Writer().WithCheck(a.kb.CheckNoteWrite), graphOpts...)
	return a, nil
}

// projectOf is the served project a configuration entry describes; its
// UUID, unless configured, derives from its store key.
func projectOf(pc config.ProjectConfig) core.Project {
	id := pc.ID
	if id == "" {
		id = core.ProjectID(pc.Key)
	}
	host, _ := os.Hostname()
	return core.Project{Key: pc.Key, ID: id, Name: pc.Name, Slug: pc.Slug, Description: pc.Description, Host: host, Path: pc.Path}
}

// entityWarnings logs notes with invalid entity values (a user's mistake,
// INFO); the annotator also gives them to the call that wrote the note.
func entityWarnings(logger *slog.Logger, project string) func(msgs ...string) {
	return func(msgs ...string) {
		for _, m := range msgs {
			logger.Info("note is not an entity", "project", project, "warning", m)
		}
	}
}

// warmWrites lets a store whose first writes are slow take that cost now
// rather than at the first edit a person waits to see (core.WriteWarmer:
// Neo4j runs each statement's first execution cold). A failure costs only
// that first edit's wait; the store's outages are logged where writes
// fail.
func (a *app) warmWrites(ctx context.Context) {
	w, ok := a.store.(core.WriteWarmer)
	if !ok {
		return
	}
	start := time.Now()
	if err := w.WarmWrites(ctx, a.primary.Key); err != nil {
		if ctx.Err() == nil {
			a.logger.Debug("store: live writes not prepared", "err", err)
		}
		return
	}
	a.logger.Debug("store: live writes prepared", "duration_s", time.Since(start).Seconds())
}

// mirrors returns every project's mirror, the primary first.
func (a *app) mirrors() []*vault.Mirror { return append([]*vault.Mirror{a.mirror}, a.others...) }

// watch keeps every project's store in line with its vault until ctx ends.
func (a *app) watch(ctx context.Context) error {
	errs := make(chan error, len(a.mirrors()))
	for _, m := range a.mirrors() {
		go func() { errs <- m.Watch(ctx) }()
	}
	var first error
	for range a.mirrors() {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// syncVault brings the store in line with the vault once. A store that is
// down is logged and left to the watcher, which retries: the server still
// starts and answers PROVIDER_ERROR until the store is back.
func (a *app) syncVault(ctx context.Context) error {
	for _, m := range a.mirrors() {
		if _, err := m.Sync(ctx); err != nil {
			if core.IsProviderError(err) && !errors.Is(err, context.Canceled) {
				a.logger.Warn("initial sync could not reach the store; changes stay queued", "err", err)
				continue
			}
			return fmt.Errorf("sync %s: %w", m.Root(), err)
		}
	}
	if err := a.projects.Sync(ctx); err != nil {
		// list_projects syncs again when asked.
		a.logger.Warn("project records could not be written; list_projects retries", "err", err)
	}
	return nil
}

// tools returns the tools the configuration enables. Before the first
// sync the vault's writer refuses writes, or waits for the sync with
// withFirstSyncWait (serve).
func (a *app) tools() ([]tools.Tool, error) {
	sel := a.selection()
	all, err := a.allTools(sel)
	if err != nil {
		return nil, err
	}
	return tools.Select(all, sel)
}

// selection is the configuration's choice of tools.
func (a *app) selection() tools.Selection { return selectionOf(a.cfg) }

// selectionOf is cfg's choice of tools (toolsets, read-only, renames...).
func selectionOf(cfg *config.Config) tools.Selection {
	return tools.Selection{
		Toolsets:     cfg.Toolsets,
		ReadOnly:     cfg.ReadOnly,
		Renames:      cfg.ToolRenames,
		Tools:        cfg.Tools,
		ExcludeTools: cfg.ExcludeTools,
	}
}

// allTools returns every tool the app can serve to sel, before sel picks
// among them: the base tools and the optional ones sel wants.
func (a *app) allTools(sel tools.Selection) ([]tools.Tool, error) {
	docs, mem, err := a.optionalTools(sel)
	if err != nil {
		return nil, err
	}
	return a.baseTools().with(docs, mem), nil
}

// baseToolsets are the tools that cost nothing until called: graph, kb
// and edit (front), entities (back).
type baseToolsets struct{ front, back []tools.Tool }

// with is every tool in the toolsets' order: graph, kb, edit, the
// documents, entities, memory.
func (b baseToolsets) with(docs, mem []tools.Tool) []tools.Tool {
	return slices.Concat(b.front, docs, b.back, mem)
}

// baseTools makes the base toolsets' tools.
func (a *app) baseTools() baseToolsets {
	front := graph.Tools(graph.NewDeps(a.graph, a.logger))
	front = append(front, kbtools.Tools(kbtools.NewDeps(a.kb, a.logger))...)
	front = append(front, edittools.Tools(edittools.Deps{
		// edit_note's writes inside a knowledge base's folder pass its
		// folder constraints, as the graph tools' do.
		Editor:  noteedit.NewService(a.mirror.Writer(), noteedit.WithCheck(a.kb.CheckNoteWrite)),
		Changes: activity.NewService(a.primary.Key, a.store, a.activity),
		Logger:  a.logger,
	})...)
	return baseToolsets{front: front, back: entities.Tools(entities.Deps{Projects: a.projects, Entities: a.store, Logger: a.logger})}
}

// optionalTools are the tools made only for a selection that wants them
// (the memory toolset: the document index and the memory service). The
// owner calls it for each client's selection, not only its own: a client
// that selects memory gets the memory tools from an owner whose
// configuration left them out. The services are made once (lazyMu).
func (a *app) optionalTools(sel tools.Selection) (docs, mem []tools.Tool, err error) {
	a.lazyMu.Lock()
	defer a.lazyMu.Unlock()
	docs, err = a.documentTools(sel)
	if err != nil {
		return nil, nil, err
	}
	return docs, a.memoryTools(sel), nil
}

// memoryTools returns the memory tools of spec 004 over the store, with
// the configured embedder (none: the tools that need similarity are
// left out): when sel turns the memory toolset on, or names one of its
// tools alone (tools: [memory_store]). a.lazyMu is held.
func (a *app) memoryTools(sel tools.Selection) []tools.Tool {
	if !sel.Wants(tools.ToolsetMemory, memtools.Specs()) {
		return nil // not enabled
	}
	return memtools.Tools(memtools.NewDeps(a.memoryService(), a.logger))
}

// memoryService is the memory service of the primary project, made once:
// the memory tools and the document search (which covers memories) share
// it, and with it one embedder (the built-in model is loaded once).
func (a *app) memoryService() *memory.Service {
	if a.memories == nil {
		a.memories = memory.New(a.primary.Key, a.store, a.search.embedder)
	}
	return a.memories
}

// close releases the store and the knowledge bases' handle on the vault.
// Its watchers must have stopped: each mirror first settles its racy notes
// and stamps the store (vault.Mirror.Settle), so that the next start keeps
// the stored link targets instead of resolving them all again.
func (a *app) close(ctx context.Context) {
	for _, m := range a.mirrors() {
		if m != nil {
			m.Settle(context.WithoutCancel(ctx))
		}
	}
	if err := a.kb.Close(); err != nil {
		a.logger.Warn("closing the knowledge bases' vault handle", "err", err)
	}
	if err := a.store.Close(context.WithoutCancel(ctx)); err != nil {
		a.logger.Warn("closing the store", "err", err)
	}
}

// embeddedStagedBatch is how many notes a first sync into the embedded
// store reads, parses and writes at a time (vault.Config.StagedBatch):
// the store commits that many notes per transaction anyway, and a first
// sync then holds a few parts' text instead of the whole vault's (100k
// notes: peak RSS 2.2–2.5 GB → ~1.1 GB, docs/BENCHMARKS.md).
const embeddedStagedBatch = 2048

// neo4jStagedBatch is the same for Neo4j, whose staged write takes the
// parts as one stream (core.StagedStreamer: the links are drawn after the
// last part): two of its stage-1 transactions of 2,000 notes, which run
// at once. Before, a first sync handed it the whole vault in one call.
const neo4jStagedBatch = 4000

func stagedBatch(store string) int {
	if store == config.StoreEmbedded {
		return embeddedStagedBatch
	}
	return neo4jStagedBatch
}

// stamperOf is store as a core.StatesStamper (the embedded store), nil
// when it is not one: the vault's store is wrapped (entities, change feeds)
// and the wrappers do not pass it on.
func stamperOf(store core.GraphStore) core.StatesStamper {
	st, _ := store.(core.StatesStamper)
	return st
}

// logged is record, which also tells feed when the changes are in the
// log (primary: the web view's project), so its pages show who made them.
func logged(record func(context.Context, []core.NoteChange), feed *view.Feed, primary bool) func(context.Context, []core.NoteChange) {
	if !primary {
		return record
	}
	return func(ctx context.Context, changes []core.NoteChange) {
		record(ctx, changes)
		feed.Logged()
	}
}
