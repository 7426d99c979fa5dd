package view

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// Store is what the view reads of the store: the graph tools' read
// contracts (core.GraphReader's parts) and keyword relevance for search
// without an embedder.
type Store interface {
	core.NoteStateReader
	core.ContextReader
	GetNotes(ctx context.Context, project string, ids []string) ([]core.Note, error)
	ResolveTitles(ctx context.Context, project string, ids []string) (map[string]string, error)
	KeywordSearch(ctx context.Context, project, query string, limit int) ([]core.ScoredID, error)
}

// ChangeReader reads a project's change log (core.ChangeLog's reader).
type ChangeReader interface {
	Changes(ctx context.Context, project string, q core.ChangeQuery) ([]core.NoteChange, error)
	LastChange(ctx context.Context, project, id string) (*core.NoteChange, error)
}

// Graph is the graph toolset's service the view shares with the tools:
// search, find_path and, for a session that may write, update.
type Graph interface {
	HasSearch() bool
	Search(ctx context.Context, query string, limit int) ([]core.ScoredNode, error)
	FindPath(ctx context.Context, source, target string) ([]string, error)
	Update(ctx context.Context, id string, u core.NoteUpdate) (*core.UpdateResult, error)
}

var _ Graph = (*core.GraphService)(nil)

// Options configure a View.
type Options struct {
	Project string
	Store   Store
	Graph   Graph
	// Feed tells the view which notes changed; nil: the view shows the
	// vault as it was when it loaded.
	Feed *Feed
	// Changes is the project's change log (recent_changes'), from which
	// the view shows who changed what; nil: it shows none.
	Changes ChangeReader
	// CacheFile keeps the layout between runs ("" for none); see
	// CacheFileName.
	CacheFile string
	Auth      AuthOptions
	Logger    *slog.Logger
}

// cacheDelay is how long after the last change the layout cache is
// written (and at shutdown): often enough to survive a crash, rarely
// enough not to rewrite a 100k-note file at every keystroke.
const cacheDelay = 10 * time.Second

// View serves the web view of one project's notes. Make it with New, run
// it with Run, serve Handler.
type View struct {
	opts   Options
	log    *slog.Logger
	auth   *authenticator
	events *broker

	ready   chan struct{} // closed once the notes are loaded (or failed to)
	loadErr error
	done    chan struct{} // closed when Run returns: event streams end

	mu        sync.RWMutex
	nodes     map[string]*node
	rev       uint64
	laying    bool      // a full layout runs
	snap      *snapshot // of rev, built on demand
	overviews map[int][]byte
}

// New checks opts and returns a View that answers "starting" until Run
// has loaded the notes.
func New(opts Options) (*View, error) {
	if opts.Store == nil || opts.Graph == nil {
		return nil, errors.New("view: a store and a graph service are required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	a, err := newAuthenticator(opts.Auth)
	if err != nil {
		return nil, err
	}
	return &View{opts: opts, log: opts.Logger, auth: a, events: newBroker(), ready: make(chan struct{}), done: make(chan struct{}), nodes: map[string]*node{}}, nil
}

// Run loads the notes (from the layout cache and the store), lays out
// those without a position, then follows the Feed until ctx ends, when it
// writes the layout cache.
func (v *View) Run(ctx context.Context) error {
	defer close(v.done)
	err := v.load(ctx)
	v.loadErr = err
	close(v.ready)
	if err != nil {
		return err
	}
	layoutDone := make(chan bool, 1)
	v.startLayout(ctx, layoutDone)
	var wake <-chan struct{}
	if v.opts.Feed != nil {
		wake = v.opts.Feed.wake
	}
	var save <-chan time.Time
	var saveTimer *time.Timer
	dirty := false
	for {
		select {
		case <-ctx.Done():
			if dirty {
				v.saveCache()
			}
			return nil
		case full := <-layoutDone:
			if full {
				v.saveCache()
				v.events.publish("reload", map[string]any{"rev": v.revision(), "reason": "layout"})
			}
		case <-wake:
			if v.opts.Feed.takeLogged() {
				v.events.publish("changes", map[string]any{})
			}
			written, deleted, overflow := v.opts.Feed.take()
			if len(written) == 0 && len(deleted) == 0 && !overflow {
				continue
			}
			if err := v.apply(ctx, written, deleted, overflow); err != nil {
				if ctx.Err() != nil {
					continue
				}
				v.log.Warn("view: following a change failed; reading every note again", "err", err)
				if err := v.reload(ctx); err != nil {
					v.log.Warn("view: reading the notes failed; the next change retries", "err", err)
					continue
				}
			}
			v.startLayout(ctx, layoutDone)
			dirty = true
			if saveTimer == nil {
				saveTimer = time.NewTimer(cacheDelay)
				save = saveTimer.C
			} else {
				saveTimer.Reset(cacheDelay)
			}
		case <-save:
			if dirty {
				v.saveCache()
				dirty = false
			}
		}
	}
}

// Ready is closed once the notes are loaded.
func (v *View) Ready() <-chan struct{} { return v.ready }

// NewLink returns a one-time login path ("/view/login?k=..."): the first
// request with it opens a session (read-only if readOnly) and the secret
// is spent.
func (v *View) NewLink(readOnly bool) string { return v.auth.newLink(readOnly) }

func (v *View) revision() uint64 {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.rev
}

// load reads the notes and gives every note a position: its cached one,
// or a seeded one until the layout has run.
func (v *View) load(ctx context.Context) error {
	cached, err := readCache(v.opts.CacheFile, v.opts.Project)
	if err != nil {
		v.log.Warn("view: layout cache unreadable; laying out again", "err", err)
		cached = nil
	}
	start := time.Now()
	nodes, err := loadNodes(ctx, v.opts.Store, v.opts.Project, cached)
	if err != nil {
		return err
	}
	v.mu.Lock()
	v.nodes = nodes
	v.changedLocked()
	placed := 0
	for _, n := range nodes {
		if n.Placed {
			placed++
		}
	}
	v.mu.Unlock()
	v.log.Info("view: notes loaded", "notes", len(nodes), "cached_positions", placed, "duration_s", time.Since(start).Seconds())
	return nil
}

// reload reads every note again (after an overflow or a failed update)
// and tells pages to fetch the overview again.
func (v *View) reload(ctx context.Context) error {
	v.mu.RLock()
	cached := cacheEntries(v.nodes)
	v.mu.RUnlock()
	nodes, err := loadNodes(ctx, v.opts.Store, v.opts.Project, cached)
	if err != nil {
		return err
	}
	v.mu.Lock()
	v.nodes = nodes
	v.changedLocked()
	fresh := map[*node]bool{}
	for _, n := range nodes {
		if !n.Placed {
			fresh[n] = true
		}
	}
	all := v.allLocked()
	adj := adjacency(v.nodes, fresh, nil)
	seedFresh(all, fresh, adj)
	relaxFresh(all, fresh, adj, freshIterations)
	rev := v.rev
	v.mu.Unlock()
	v.events.publish("reload", map[string]any{"rev": rev, "reason": "changes"})
	return nil
}

// freshIterations is how long a new note is moved among the others.
const freshIterations = 60

// changedLocked starts a new revision: the snapshot and encoded
// overviews are built again when next asked for.
func (v *View) changedLocked() {
	v.rev++
	v.snap = nil
	v.overviews = nil
}

func (v *View) allLocked() []*node {
	all := make([]*node, 0, len(v.nodes))
	for _, n := range v.nodes {
		all = append(all, n)
	}
	return all
}

// snapshot returns the snapshot of the current revision.
func (v *View) snapshot() *snapshot {
	v.mu.RLock()
	s := v.snap
	v.mu.RUnlock()
	if s != nil {
		return s
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.snap == nil {
		v.snap = buildSnapshot(v.rev, v.nodes)
	}
	return v.snap
}

// fullLayoutShare: when more than this share of the notes has no
// position (no cache, or most of the vault is new), the whole vault is
// laid out again; otherwise the new notes are placed among the others.
const fullLayoutShare = 0.25

// startLayout lays out what has no position: a full layout in the
// background when much is missing (done receives true at its end), else
// the few new notes at once.
func (v *View) startLayout(ctx context.Context, done chan<- bool) {
	v.mu.Lock()
	if v.laying {
		v.mu.Unlock()
		return
	}
	unplaced := 0
	for _, n := range v.nodes {
		if !n.Placed {
			unplaced++
		}
	}
	if unplaced == 0 {
		v.mu.Unlock()
		return
	}
	if float64(unplaced) <= fullLayoutShare*float64(len(v.nodes)) {
		fresh := map[*node]bool{}
		for _, n := range v.nodes {
			if !n.Placed {
				fresh[n] = true
			}
		}
		all := v.allLocked()
		adj := adjacency(v.nodes, fresh, nil)
		seedFresh(all, fresh, adj)
		relaxFresh(all, fresh, adj, freshIterations)
		v.changedLocked()
		v.mu.Unlock()
		return
	}
	// Seed every node (the page draws these positions until the layout
	// ends), then lay out a copy in the background.
	s := buildSnapshot(v.rev, v.nodes)
	seedPositions(s)
	x, y := make([]float64, len(s.nodes)), make([]float64, len(s.nodes))
	for i, n := range s.nodes {
		x[i], y[i] = n.X, n.Y
	}
	v.changedLocked()
	v.laying = true
	v.mu.Unlock()
	go func() {
		start := time.Now()
		ok := layoutPositions(ctx, x, y, s.edges)
		v.mu.Lock()
		v.laying = false
		if ok {
			for i, n := range s.nodes {
				if cur := v.nodes[n.ID]; cur != nil {
					cur.X, cur.Y, cur.Placed = x[i], y[i], true
				}
			}
			v.changedLocked()
		}
		v.mu.Unlock()
		if ok {
			v.log.Info("view: layout computed", "notes", len(s.nodes), "edges", len(s.edges)/2, "duration_s", time.Since(start).Seconds())
		}
		done <- ok
	}()
}

// adjacency maps each of the fresh nodes to the nodes it links with in
// either direction, among byID (the view's nodes); extraIn adds known
// in-neighbours.
func adjacency(byID map[string]*node, fresh map[*node]bool, extraIn map[string][]string) map[*node][]*node {
	adj := map[*node][]*node{}
	add := func(a, b *node) {
		if a != b && !slices.Contains(adj[a], b) {
			adj[a] = append(adj[a], b)
		}
	}
	for _, n := range byID {
		for _, t := range n.Out {
			o := byID[t]
			if o == nil {
				continue
			}
			if fresh[n] {
				add(n, o)
			}
			if fresh[o] {
				add(o, n)
			}
		}
	}
	for id, ins := range extraIn {
		if n := byID[id]; n != nil && fresh[n] {
			for _, in := range ins {
				if o := byID[in]; o != nil {
					add(n, o)
				}
			}
		}
	}
	return adj
}

// apply follows a batch of changes through the store contracts: the
// written notes are read again (title, tags, links); the notes whose
// links may have changed without being written (those that linked a
// deleted note, and those whose unresolved links a new note claims, found
// through NoteContext's in-neighbours) are read again too; then pages get
// a delta.
func (v *View) apply(ctx context.Context, written, deleted []string, overflow bool) error {
	if overflow {
		return v.reload(ctx)
	}
	if len(written) == 0 && len(deleted) == 0 {
		return nil
	}
	v.mu.RLock()
	refresh := map[string]bool{}
	var created []string
	for _, id := range written {
		refresh[id] = true
		if v.nodes[id] == nil {
			created = append(created, id)
		}
	}
	gone := map[string]bool{}
	for _, id := range deleted {
		gone[id] = true
	}
	if len(gone) > 0 {
		for _, n := range v.nodes {
			for _, t := range n.Out {
				if gone[t] && !gone[n.ID] {
					refresh[n.ID] = true
				}
			}
		}
	}
	v.mu.RUnlock()
	if len(created) > maxPending/10 {
		return v.reload(ctx)
	}
	inOf := map[string][]string{}
	for _, id := range created {
		nc, err := v.opts.Store.NoteContext(ctx, v.opts.Project, id, core.ContextQuery{SkipNote: true, Direction: core.DirectionIn})
		if errors.Is(err, core.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("view: links into %s: %w", id, err)
		}
		for _, nb := range nc.Neighbors {
			inOf[id] = append(inOf[id], nb.ID)
			if !gone[nb.ID] {
				refresh[nb.ID] = true
			}
		}
	}
	ids := make([]string, 0, len(refresh))
	for id := range refresh {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	read := map[string]*core.Note{}
	for start := 0; start < len(ids); start += readChunk {
		notes, err := v.opts.Store.GetNotes(ctx, v.opts.Project, ids[start:min(start+readChunk, len(ids))])
		if err != nil {
			return fmt.Errorf("view: read changed notes: %w", err)
		}
		for i := range notes {
			read[notes[i].ID] = &notes[i]
		}
	}

	v.mu.Lock()
	var upserted []*node
	var removed []string
	for id := range gone {
		if v.nodes[id] != nil {
			delete(v.nodes, id)
			removed = append(removed, id)
		}
	}
	fresh := map[*node]bool{}
	for _, id := range ids {
		note := read[id]
		if note == nil { // deleted since it was written
			if v.nodes[id] != nil {
				delete(v.nodes, id)
				removed = append(removed, id)
			}
			continue
		}
		n := v.nodes[id]
		if n == nil {
			n = &node{ID: id}
			v.nodes[id] = n
			fresh[n] = true
		}
		n.Path, n.Hash, n.Title, n.Tags = note.Path, note.Hash, note.Title, note.Tags
		n.setLinks(note.Links)
		upserted = append(upserted, n)
	}
	if len(fresh) > 0 {
		all := v.allLocked()
		adj := adjacency(v.nodes, fresh, inOf)
		seedFresh(all, fresh, adj)
		relaxFresh(all, fresh, adj, freshIterations)
	}
	v.changedLocked()
	delta := deltaEvent{Rev: v.rev, Remove: removed}
	slices.Sort(delta.Remove)
	for _, n := range upserted {
		delta.Upsert = append(delta.Upsert, nodeJSON(n))
	}
	v.mu.Unlock()
	if delta.Remove == nil {
		delta.Remove = []string{}
	}
	v.events.publish("delta", delta)
	return nil
}

// deltaEvent is what a page receives when notes change: the notes to add
// or replace (with all their outgoing links) and those to drop.
type deltaEvent struct {
	Rev    uint64     `json:"rev"`
	Upsert []noteJSON `json:"upsert"`
	Remove []string   `json:"remove"`
}

// noteJSON is one note in a delta.
type noteJSON struct {
	ID     string   `json:"id"`
	Title  string   `json:"title"`
	Folder string   `json:"folder"`
	Tags   []string `json:"tags"`
	X      float32  `json:"x"`
	Y      float32  `json:"y"`
	Out    []string `json:"out"`
	Ghosts []string `json:"ghosts"`
}

func nodeJSON(n *node) noteJSON {
	j := noteJSON{ID: n.ID, Title: n.Title, Folder: topFolder(n.Path), Tags: n.Tags, X: float32(n.X), Y: float32(n.Y),
		Out: slices.Clone(n.Out), Ghosts: slices.Clone(n.Ghosts)}
	if j.Tags == nil {
		j.Tags = []string{}
	}
	if j.Out == nil {
		j.Out = []string{}
	}
	if j.Ghosts == nil {
		j.Ghosts = []string{}
	}
	return j
}

// saveCache writes the layout cache; a failure is logged (it only costs
// a layout at the next start).
func (v *View) saveCache() {
	if v.opts.CacheFile == "" {
		return
	}
	v.mu.RLock()
	entries := cacheEntries(v.nodes)
	v.mu.RUnlock()
	if err := writeCache(v.opts.CacheFile, v.opts.Project, entries); err != nil {
		v.log.Warn("view: layout cache not written", "file", v.opts.CacheFile, "err", err)
	}
}
