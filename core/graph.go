package core

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Limits of the graph operations (spec 000; docs/LIMITS.md). The tool
// schemas publish the same numbers; GraphService checks them again so that a caller that is not
// the MCP layer cannot step around them.
const (
	MaxSearchLimit       = 50  // search: results
	MaxNeighborLimit     = 50  // get_neighbors: neighbours
	MaxHubLimit          = 50  // get_hubs: hubs
	MaxTagSearchLimit    = 100 // search_by_tags: notes
	ContextNeighborCount = 20  // get_node depth 1: neighbours included
	MaxNodeDepth         = 1   // get_node: deepest neighbourhood

	// Content limits, counted in characters (Unicode code points), see
	// TruncateContent.
	PrimaryContentLimit  = 10000 // a single node: get_node, random_node, create/update results
	ListContentLimit     = 500   // each node of a list: search, get_neighbors, search_by_tags
	NeighborContentLimit = 200   // each neighbour inside a get_node depth 1 result

	// TruncationSuffix is appended to content that was cut.
	TruncationSuffix = "... [truncated]"
)

// ErrSearchUnavailable reports that no Searcher is configured: semantic
// search needs an embedding provider. The search tool is not registered in
// that case, so clients normally never see it.
var ErrSearchUnavailable = errors.New("semantic search is not configured")

// ScoredID is a note ID with a similarity score in [0, 1], higher is closer.
type ScoredID struct {
	ID    string
	Score float64
}

// Searcher finds the notes most similar to a natural-language query, best
// first. It is implemented on top of an Embedder and the store's vector
// index; a GraphService without one has no semantic search.
type Searcher interface {
	Search(ctx context.Context, query string, limit int) ([]ScoredID, error)
}

// NodeView is a note shaped for a client: its links carry titles and its
// content may be truncated (TruncateContent).
type NodeView struct {
	ID      string
	Title   string
	Content string
	Tags    []string
	Links   []LinkInfo // distinct resolved outgoing links, first-seen order
	// Unresolved are the note's links to nothing, as written (GetNode's
	// node only, with an UnresolvedLister; nil otherwise).
	Unresolved []string
}

// NeighborView is a neighbour of a node and the side it is on.
type NeighborView struct {
	NodeView
	Direction Direction // DirectionIn or DirectionOut
}

// Neighborhood is the context get_node adds at depth 1.
type Neighborhood struct {
	Neighbors     []NeighborView // up to ContextNeighborCount, outgoing first
	IncomingCount int            // distinct notes linking to the node
	OutgoingCount int            // distinct notes the node links to
}

// NodeDetail is the answer to GetNode: the node and, at depth 1, its
// neighbourhood (nil at depth 0).
type NodeDetail struct {
	Node    NodeView
	Context *Neighborhood
}

// ScoredNode is a search result.
type ScoredNode struct {
	NodeView
	Score float64
}

// UpdateResult is the updated node and, when the title changed, what the
// rename rewrote.
type UpdateResult struct {
	Node    NodeView
	Renamed *RenameReport
}

// CreateResult is what Create did: the new note and the other notes it
// rewrote so that their links keep their meaning (empty when none).
type CreateResult struct {
	NodeView
	Relinked []Relinked
}

// GraphService is the graph toolset's domain service ("GraphCore" in the
// specs): it answers the spec 000 operations for one project by combining a
// GraphReader, a NoteWriter and an optional Searcher. It applies what every answer needs and no store should
// repeat: case-insensitive ID lookup, link titles resolved in one batch per
// answer, content truncation and argument checks.
//
// Methods return core types only; shaping JSON is the tool layer's job.
// A GraphService is safe for concurrent use.
type GraphService struct {
	project  string
	reader   GraphReader
	writer   NoteWriter
	searcher Searcher
	pick     func(n int) int
	// unresolved, when set, lists a node's unresolved links for GetNode.
	unresolved UnresolvedLister
}

// UnresolvedLister lists the links of a note that resolve to nothing, as
// written (the vault knows them: vault.Writer.UnresolvedLinks).
type UnresolvedLister interface {
	UnresolvedLinks(ctx context.Context, id string) []string
}

// WithUnresolved makes GetNode list the node's unresolved links
// (NodeView.Unresolved; issue 45.2).
func WithUnresolved(u UnresolvedLister) GraphOption {
	return func(g *GraphService) { g.unresolved = u }
}

// GraphOption configures a GraphService.
type GraphOption func(*GraphService)

// WithSearcher enables semantic search.
func WithSearcher(s Searcher) GraphOption {
	return func(g *GraphService) { g.searcher = s }
}

// WithRandomSeed makes RandomNode repeatable: the same seed and graph give
// the same sequence of answers. Without it the choice is unseeded.
func WithRandomSeed(seed uint64) GraphOption {
	return func(g *GraphService) {
		var mu sync.Mutex // *rand.Rand is not safe for concurrent use
		r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		g.pick = func(n int) int {
			mu.Lock()
			defer mu.Unlock()
			return r.IntN(n)
		}
	}
}

// NewGraphService returns the graph service of project. writer may be nil
// for a read-only deployment; the write methods then fail.
func NewGraphService(project string, reader GraphReader, writer NoteWriter, opts ...GraphOption) *GraphService {
	g := &GraphService{project: project, reader: reader, writer: writer, pick: rand.IntN}
	for _, opt := range opts {
		opt(g)
	}
	return g
}

// HasSearch reports whether semantic search is available.
func (g *GraphService) HasSearch() bool { return g.searcher != nil }

// GetNode returns the node with id (see noteContext for letter case) and, at
// depth 1, up to ContextNeighborCount neighbours with their direction and
// the node's distinct in- and out-degree; the neighbour slots are shared
// between the directions (SplitNeighbors: up to half each, the rest to
// the other side), so a note with many outgoing links still shows its
// backlinks. A missing node is (nil, nil).
func (g *GraphService) GetNode(ctx context.Context, id string, depth int) (*NodeDetail, error) {
	if err := requireID("id", id); err != nil {
		return nil, err
	}
	if depth < 0 || depth > MaxNodeDepth {
		return nil, InvalidArgument("depth must be 0 or 1, got %d", depth)
	}
	q := ContextQuery{}
	if depth == 1 {
		q = ContextQuery{Direction: DirectionBoth, Limit: ContextNeighborCount, Balanced: true}
	}
	nc, err := g.noteContext(ctx, id, q)
	if nc == nil || err != nil {
		return nil, err
	}
	node := shapeView(nc.Note, PrimaryContentLimit)
	if g.unresolved != nil {
		node.Unresolved = g.unresolved.UnresolvedLinks(ctx, node.ID)
	}
	if depth == 0 {
		return &NodeDetail{Node: node}, nil
	}
	for i := range nc.Neighbors { // shaped in place: nc is this call's own
		nc.Neighbors[i].NodeView = shapeView(nc.Neighbors[i].NodeView, NeighborContentLimit)
	}
	if nc.Neighbors == nil {
		nc.Neighbors = []NeighborView{}
	}
	around := &Neighborhood{Neighbors: nc.Neighbors, IncomingCount: nc.Degree.In, OutgoingCount: nc.Degree.Out}
	return &NodeDetail{Node: node, Context: around}, nil
}

// noteContext reads around the note a client's ID names, trying
// IDCandidates in order: the exact ID first (the common case costs one
// call), then the others with one ResolveTitles call. nil when no
// candidate exists.
func (g *GraphService) noteContext(ctx context.Context, id string, q ContextQuery) (*NoteContext, error) {
	nc, err := g.reader.NoteContext(ctx, g.project, id, q)
	if err == nil {
		return nc, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("graph: read around %s: %w", id, err)
	}
	resolved, err := g.resolveID(ctx, id)
	if resolved == "" || resolved == id || err != nil {
		return nil, err
	}
	nc, err = g.reader.NoteContext(ctx, g.project, resolved, q)
	if errors.Is(err, ErrNotFound) { // deleted in between
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("graph: read around %s: %w", resolved, err)
	}
	return nc, nil
}

// Neighbors returns up to limit (1..MaxNeighborLimit) notes adjacent to id,
// outgoing first, content truncated to ListContentLimit. A missing node has
// no neighbours: the result is empty, not an error.
func (g *GraphService) Neighbors(ctx context.Context, id string, dir Direction, limit int) ([]NeighborView, error) {
	if err := requireID("id", id); err != nil {
		return nil, err
	}
	if !dir.Valid() {
		return nil, InvalidArgument("direction must be one of in, out, both, got %q", dir)
	}
	if err := checkLimit(limit, MaxNeighborLimit); err != nil {
		return nil, err
	}
	nc, err := g.noteContext(ctx, id, ContextQuery{SkipNote: true, Direction: dir, Limit: limit})
	if nc == nil || err != nil {
		return []NeighborView{}, err
	}
	for i := range nc.Neighbors { // shaped in place: nc is this call's own
		nc.Neighbors[i].NodeView = shapeView(nc.Neighbors[i].NodeView, ListContentLimit)
	}
	if nc.Neighbors == nil {
		return []NeighborView{}, nil
	}
	return nc.Neighbors, nil
}

// FindPath returns the IDs of a shortest path along link direction from
// source to target, both included; nil when either note is missing or no
// path exists.
func (g *GraphService) FindPath(ctx context.Context, source, target string) ([]string, error) {
	if err := requireID("source", source); err != nil {
		return nil, err
	}
	if err := requireID("target", target); err != nil {
		return nil, err
	}
	from, err := g.resolveID(ctx, source)
	if from == "" || err != nil {
		return nil, err
	}
	to, err := g.resolveID(ctx, target)
	if to == "" || err != nil {
		return nil, err
	}
	path, err := g.reader.ShortestPath(ctx, g.project, from, to)
	if err != nil {
		return nil, fmt.Errorf("graph: path %s -> %s: %w", from, to, err)
	}
	if len(path) == 0 {
		return nil, nil
	}
	return path, nil
}

// Hubs returns the limit (1..MaxHubLimit) most central notes by metric.
func (g *GraphService) Hubs(ctx context.Context, metric HubMetric, limit int) ([]Hub, error) {
	if !metric.Valid() {
		return nil, InvalidArgument("metric must be one of in_degree, out_degree, pagerank, got %q", metric)
	}
	if err := checkLimit(limit, MaxHubLimit); err != nil {
		return nil, err
	}
	hubs, err := g.reader.Hubs(ctx, g.project, metric, limit)
	if err != nil {
		return nil, fmt.Errorf("graph: hubs by %s: %w", metric, err)
	}
	if hubs == nil {
		hubs = []Hub{}
	}
	return hubs, nil
}

// SearchByTags returns up to limit (1..MaxTagSearchLimit) notes carrying
// any or all of tags, by ID, content truncated to ListContentLimit.
func (g *GraphService) SearchByTags(ctx context.Context, tags []string, mode TagMode, limit int) ([]NodeView, error) {
	if len(tags) == 0 {
		return nil, InvalidArgument("tags must name at least one tag")
	}
	if !mode.Valid() {
		return nil, InvalidArgument("mode must be one of any, all, got %q", mode)
	}
	if err := checkLimit(limit, MaxTagSearchLimit); err != nil {
		return nil, err
	}
	views, err := g.reader.TaggedViews(ctx, g.project, tags, mode, limit)
	if err != nil {
		return nil, fmt.Errorf("graph: notes by tags: %w", err)
	}
	for i := range views {
		views[i] = shapeView(views[i], ListContentLimit)
	}
	return views, nil
}

// RandomNode returns a note chosen uniformly among all notes, or among
// those carrying any of tags; nil when there is none. Attachments and
// canvases are not notes here (GraphReader.RandomNote).
func (g *GraphService) RandomNode(ctx context.Context, tags []string) (*NodeView, error) {
	view, err := g.reader.RandomView(ctx, g.project, tags, g.pick)
	if err != nil {
		return nil, fmt.Errorf("graph: random note: %w", err)
	}
	if view == nil {
		return nil, nil
	}
	shaped := shapeView(*view, PrimaryContentLimit)
	return &shaped, nil
}

// Search returns up to limit (1..MaxSearchLimit) notes most similar to
// query (notes only: no attachment or canvas, NoteHits), best first, content truncated to ListContentLimit. Notes the
// searcher found but the store no longer holds are left out.
func (g *GraphService) Search(ctx context.Context, query string, limit int) ([]ScoredNode, error) {
	if g.searcher == nil {
		return nil, ErrSearchUnavailable
	}
	if strings.TrimSpace(query) == "" {
		return nil, InvalidArgument("query must not be empty")
	}
	if err := checkLimit(limit, MaxSearchLimit); err != nil {
		return nil, err
	}
	hits, err := g.searcher.Search(ctx, query, limit)
	if err != nil {
		return nil, fmt.Errorf("graph: search: %w", err)
	}
	hits = NoteHits(hits) // whatever the searcher, search answers notes
	ids := make([]string, len(hits))
	scores := make(map[string]float64, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
		if _, seen := scores[h.ID]; !seen {
			scores[h.ID] = h.Score
		}
	}
	notes, err := g.reader.GetNotes(ctx, g.project, ids)
	if err != nil {
		return nil, fmt.Errorf("graph: search results: %w", err)
	}
	notes = distinctNotes(notes)
	views, err := g.views(ctx, notes, ListContentLimit)
	if err != nil {
		return nil, err
	}
	out := make([]ScoredNode, len(views))
	for i, v := range views {
		out[i] = ScoredNode{NodeView: v, Score: scores[v.ID]}
	}
	return out, nil
}

// Create writes a new note through the NoteWriter and returns it, with
// the other notes the create rewrote when the writer says
// (CreateReporter). The file name is derived from the title by the
// writer; an existing file gives ErrExists, a directory outside the vault
// ErrInvalidPath.
func (g *GraphService) Create(ctx context.Context, n NewNote) (*CreateResult, error) {
	if strings.TrimSpace(n.Title) == "" {
		return nil, InvalidArgument("title must not be empty")
	}
	if g.writer == nil {
		return nil, errNoWriter
	}
	var note *Note
	var relinked []Relinked
	var err error
	if r, ok := g.writer.(CreateReporter); ok {
		note, relinked, err = r.CreateReporting(ctx, n)
	} else {
		note, err = g.writer.Create(ctx, n)
	}
	if err != nil {
		return nil, fmt.Errorf("graph: create %q: %w", n.Title, err)
	}
	views, err := g.writtenViews(ctx, []Note{*note})
	if err != nil {
		return nil, err
	}
	return &CreateResult{NodeView: views[0], Relinked: relinked}, nil
}

// Update changes the note with id (see noteContext for letter case). At least
// one field of u must be set. A missing note gives ErrNotFound.
func (g *GraphService) Update(ctx context.Context, id string, u NoteUpdate) (*UpdateResult, error) {
	if err := requireID("id", id); err != nil {
		return nil, err
	}
	if u.Title == nil && u.Content == nil && u.Tags == nil {
		return nil, InvalidArgument("at least one of title, content or tags must be given")
	}
	if u.Title != nil && strings.TrimSpace(*u.Title) == "" {
		return nil, InvalidArgument("title must not be empty")
	}
	if g.writer == nil {
		return nil, errNoWriter
	}
	resolved, err := g.resolveWriteID(ctx, id)
	if err != nil {
		return nil, err
	}
	if resolved == "" {
		return nil, fmt.Errorf("graph: update %s: %w", id, ErrNotFound)
	}
	note, report, err := g.writer.Update(ctx, resolved, u)
	if err != nil {
		return nil, fmt.Errorf("graph: update %s: %w", resolved, err)
	}
	views, err := g.writtenViews(ctx, []Note{*note})
	if err != nil {
		return nil, err
	}
	return &UpdateResult{Node: views[0], Renamed: report}, nil
}

// Delete removes the note with id (see noteContext for letter case); false when
// there was none.
func (g *GraphService) Delete(ctx context.Context, id string) (bool, error) {
	if err := requireID("id", id); err != nil {
		return false, err
	}
	if g.writer == nil {
		return false, errNoWriter
	}
	resolved, err := g.resolveWriteID(ctx, id)
	if resolved == "" || err != nil {
		return false, err
	}
	deleted, err := g.writer.Delete(ctx, resolved)
	if err != nil {
		return false, fmt.Errorf("graph: delete %s: %w", resolved, err)
	}
	return deleted, nil
}

// errNoWriter is a wiring bug: the write tools are registered only with a
// writer.
var errNoWriter = errors.New("graph: no note writer configured")

// resolveID returns the first of IDCandidates(id) that exists, or "" when
// none does; one round trip.
func (g *GraphService) resolveID(ctx context.Context, id string) (string, error) {
	candidates := IDCandidates(id)
	titles, err := g.reader.ResolveTitles(ctx, g.project, candidates)
	if err != nil {
		return "", fmt.Errorf("graph: resolve %s: %w", id, err)
	}
	for _, c := range candidates {
		if _, ok := titles[c]; ok {
			return c, nil
		}
	}
	return "", nil
}

// resolveWriteID is resolveID for a write: when the store fails (a
// provider error, Neo4j down) and the writer keeps an index of its own
// (LocalResolver), the vault's index answers, and the write goes on to
// the file with its store change queued (issue 44.5: one contract for
// every write tool while the store is down).
func (g *GraphService) resolveWriteID(ctx context.Context, id string) (string, error) {
	resolved, err := g.resolveID(ctx, id)
	if err == nil || !IsProviderError(err) {
		return resolved, err
	}
	local, ok := g.writer.(LocalResolver)
	if !ok {
		return "", err
	}
	resolved, lerr := local.LocalID(ctx, IDCandidates(id))
	if lerr != nil {
		return "", err
	}
	AddCallWarnings(ctx, StoreQueuedWarning)
	return resolved, nil
}

// writtenViews shapes the notes a write returns. Their links' titles come
// from the store, or, when it fails (provider error) and the writer keeps
// an index of its own (LocalResolver), from the vault: the file is
// written by then, and an error here would report a write that happened
// as failed (a retry would meet ErrExists).
func (g *GraphService) writtenViews(ctx context.Context, notes []Note) ([]NodeView, error) {
	views, err := g.views(ctx, notes, PrimaryContentLimit)
	if err == nil || !IsProviderError(err) {
		return views, err
	}
	local, ok := g.writer.(LocalResolver)
	if !ok {
		return nil, err
	}
	var ids []string
	for i := range notes {
		ids = append(ids, notes[i].LinkTargets()...)
	}
	titles, lerr := local.LocalTitles(ctx, ids)
	if lerr != nil {
		return nil, err
	}
	AddCallWarnings(ctx, StoreQueuedWarning)
	return shapeViews(notes, sameLimits(len(notes), PrimaryContentLimit), titles), nil
}

// IDCandidates returns the IDs to try, in order, for an ID or path given by
// a client: the exact string (IDs of case-colliding files keep their case),
// its lowercase form in Unicode NFC (IDs are lowercased NFC paths, but
// clients echo paths as they appear on disk), then both with ".md" added when it has no ".md"
// extension. Surrounding spaces and a leading "./" are dropped.
func IDCandidates(id string) []string {
	id = strings.TrimPrefix(strings.TrimSpace(id), "./")
	out := make([]string, 0, 4)
	add := func(s string) {
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	// Note IDs are in Unicode NFC (file names from macOS are often
	// decomposed; a person cannot see the difference).
	lower := norm.NFC.String(strings.ToLower(id))
	add(id)
	add(lower)
	if !strings.HasSuffix(lower, ".md") {
		add(id + ".md")
		add(lower + ".md")
	}
	return out
}

// views shapes notes with one content limit for all.
func (g *GraphService) views(ctx context.Context, notes []Note, limit int) ([]NodeView, error) {
	return g.viewsWithLimits(ctx, notes, sameLimits(len(notes), limit))
}

// viewsWithLimits shapes notes, truncating notes[i] to limits[i], and
// resolves the titles of all their links with a single ResolveTitles call.
func (g *GraphService) viewsWithLimits(ctx context.Context, notes []Note, limits []int) ([]NodeView, error) {
	var all []string
	seen := make(map[string]bool)
	for i := range notes {
		for _, t := range notes[i].LinkTargets() {
			if !seen[t] {
				seen[t] = true
				all = append(all, t)
			}
		}
	}
	titles := map[string]string{}
	if len(all) > 0 {
		var err error
		titles, err = g.reader.ResolveTitles(ctx, g.project, all)
		if err != nil {
			return nil, fmt.Errorf("graph: resolve link titles: %w", err)
		}
	}
	return shapeViews(notes, limits, titles), nil
}

// shapeViews shapes notes, truncating notes[i] to limits[i], with their
// links' titles from titles. Links whose target is not in titles (it
// vanished since the notes were read) are left out.
func shapeViews(notes []Note, limits []int, titles map[string]string) []NodeView {
	views := make([]NodeView, len(notes))
	for i := range notes {
		views[i] = shapeView(ViewOf(&notes[i], titles), limits[i])
	}
	return views
}

// shapeView is v as a client sees it: content truncated to limit, and
// lists, never nil.
func shapeView(v NodeView, limit int) NodeView {
	v.Content = TruncateContent(v.Content, limit)
	if v.Tags == nil {
		v.Tags = []string{}
	}
	if v.Links == nil {
		v.Links = []LinkInfo{}
	}
	return v
}

func sameLimits(n, limit int) []int {
	limits := make([]int, n)
	for i := range limits {
		limits[i] = limit
	}
	return limits
}

// TruncateContent cuts s to its first limit characters (Unicode code
// points; an invalid UTF-8 byte counts as one) and appends
// TruncationSuffix. Content of at most limit characters is returned as it
// is, so the result of a cut is limit+len(suffix) characters long. A cut
// never splits a UTF-8 sequence.
func TruncateContent(s string, limit int) string {
	if limit < 0 || len(s) <= limit { // len in bytes >= characters
		return s
	}
	count := 0
	for i := range s { // i steps over whole runes
		if count == limit {
			return s[:i] + TruncationSuffix
		}
		count++
	}
	return s // exactly limit characters or fewer
}

// requireID rejects an empty or blank ID argument.
func requireID(name, id string) error {
	if strings.TrimSpace(id) == "" {
		return InvalidArgument("%s must not be empty", name)
	}
	if !utf8.ValidString(id) {
		return InvalidArgument("%s must be valid UTF-8", name)
	}
	return nil
}

// checkLimit rejects a limit outside 1..maxLimit.
func checkLimit(limit, maxLimit int) error {
	if limit < 1 || limit > maxLimit {
		return InvalidArgument("limit must be between 1 and %d, got %d", maxLimit, limit)
	}
	return nil
}

// distinctNotes drops repeated IDs, keeping the first.
func distinctNotes(notes []Note) []Note {
	seen := make(map[string]bool, len(notes))
	out := notes[:0]
	for _, n := range notes {
		if !seen[n.ID] {
			seen[n.ID] = true
			out = append(out, n)
		}
	}
	return out
}
