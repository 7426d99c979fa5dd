package memstore

import (
	"cmp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/vaultgraph/vaultgraph/core"
)

// graph is the note graph of one project. mu guards everything but the hub
// caches, which readers fill lazily under mu.RLock with their own locks.
type graph struct {
	mu sync.RWMutex

	notes map[string]*node
	all   nodeList             // every note, by ID
	tags  map[string]*tagIndex // normalised tag -> notes carrying it
	// unresolved maps a link key to the notes holding an unresolved link
	// with that key, so a new note claiming the key finds them at once.
	unresolved map[string]map[*node]struct{}
	// pending finds the unresolved links whose record names a target that
	// is not there yet (see pendingLinks, write.go).
	pending pendingLinks
	// entities maps an entity ID to the notes carrying it, by note ID; the
	// first is the entity (see core.EntityReader).
	entities map[string]nodeList

	// version changes whenever the set of notes or of edges does; hub
	// caches are valid for one version.
	version uint64
	hubs    [3]hubCache // by hubSlot(metric)
	files   fileCache   // positions of attachments and canvases in all (filePositions)

	// Every node has a slot, a small integer reused after deletion, so
	// searches can mark nodes in flat arrays (see search.go) instead of
	// maps.
	slots     int32   // slots handed out so far
	freeSlots []int32 // slots of deleted nodes
	slotNodes []*node // by slot, nil for a free one: vector rows are numbered by slot
	scratch   sync.Pool
	// targetSeen (a bit by slot) and targetBuf are setTargets' scratch,
	// used under mu held for writing.
	targetSeen []uint64
	targetBuf  []*node
	// edgeChanges and tagChanges are a write's lists of changes (see
	// newWrite), kept for the next write.
	edgeChanges, tagChanges changes

	search *searchIndex // embeddings and keyword index, see search.go
	// keywordsReady is closed once the keyword index holds every note: a
	// graph loaded from disk fills it in the background (buildKeywords).
	keywordsReady chan struct{}
	vectorsReady  chan struct{} // closed once the vectors are loaded, likewise
	// searchLoad starts the background load of a graph loaded from disk
	// (nil for any other): once, at the first use of the graph that is not
	// a restart's NoteStates (startSearch), so it does not compete with
	// the restart for a core.
	searchLoad    func()
	searchOnce    sync.Once
	searchStarted atomic.Bool // searchLoad has been called
	// termsOnDisk: the keyword dictionary of a graph loaded from disk is
	// not read yet (Store.ensureTerms reads it under mu).
	termsOnDisk bool
	// dropped marks a graph the store forgot after a failed write (see
	// Store.forget); a writer that finds it set takes the store's new one.
	dropped bool
}

// tagIndex is the notes carrying one tag, by ID: ordered walks read it,
// all-mode queries binary-search it. (A set beside it cost a map entry
// per tag of every note, a fifth of a 100k-note store's load time.)
type tagIndex struct {
	list nodeList
}

// node is one note and its edges. Its lists are sorted by ID, so every
// ordered answer is a walk over a prefix.
//
// A node holds only what reads answer from memory: ID, title, path, hash,
// tags, entity and each link's key and target. Content, frontmatter, size,
// mtime and the links as written (raw text, alias, heading, embed) stay on
// disk, in the note and body records (record.go), and are read by the calls
// that return them. The strings are windows into arenas (arena.go): one
// allocation for a written note's strings, large shared blocks for a
// project loaded from disk; a link's key is a window into its target's ID
// where it is a suffix of it, as almost every resolved link's key is.
type node struct {
	// Searches touch only these first fields of most nodes they visit:
	// together they fit one cache line.
	slot int32    // see graph.slots
	gen  uint32   // counts the writes of this note (see buildKeywords)
	out  nodeList // distinct notes this one links to
	in   nodeList // distinct notes linking to this one

	ID, Title, Path, Hash string
	Tags                  []string // as written, de-duplicated by the vault
	links                 []link   // every link in document order
	// targets are nd's distinct link targets in the order of their first
	// link: what a view shows (viewLinks), kept so that a view walks no
	// duplicate or unresolved link and builds no set (setTargets).
	targets []*node
	Entity  *core.NoteEntity
}

// link is one link of a note as memory keeps it.
type link struct {
	key    string // resolution key (core.Link.Key)
	target *node  // nil while unresolved
}

// viewLinks are what a view shows of nd's links (core.ViewOf): its
// distinct link targets in the order of their first link, with their IDs
// and titles, written at the start of room (which must hold them, see
// views) and returned with the rest of room; nil when nd has none. The
// caller holds the graph's lock.
//
// It also reads the first byte of each target's ID and title. A view is
// encoded next, which escapes these strings one after another, and each
// lies in an arena away from its node (a loaded note's title right after
// its ID, see graph.build): the encoder waited for each string's cache
// line in turn, while here, the loads being independent of each other,
// the CPU fetches them together. A depth=1 answer lists hundreds of
// targets; at 100k notes this took its encoding from ~70 to ~45 µs a call
// (docs/BENCHMARKS.md).
func (nd *node) viewLinks(room []core.LinkInfo) (links, rest []core.LinkInfo) {
	if len(nd.targets) == 0 {
		return nil, room
	}
	out := room[:len(nd.targets):len(nd.targets)]
	var first byte
	for i, t := range nd.targets {
		out[i] = core.LinkInfo{ID: t.ID, Title: t.Title}
		if t.ID != "" && t.Title != "" {
			first |= t.ID[0] | t.Title[0]
		}
	}
	runtime.KeepAlive(first) // the loads are the point: kept
	return out, room[len(out):]
}

// setTargets sets nd.targets from nd.links; every change of a link's
// target calls it, with g.mu held for writing.
func (g *graph) setTargets(nd *node) {
	// Collected on the stack (or in g.targetBuf), then copied at their
	// number: a first sync sets a linker's targets again each time some of
	// them are written (pendingLinks), and a list grown by append
	// allocated about twice its size each time. A note with many links
	// tells a repeated target by a mark at its slot: a set made for it
	// was 7% of a 100k first sync's garbage.
	var buf [smallLinks]*node
	out := buf[:0]
	many := len(nd.links) > smallLinks
	if many {
		if len(g.targetSeen)*64 < int(g.slots) {
			g.targetSeen = make([]uint64, int(g.slots+g.slots/8)/64+1)
		}
		out = g.targetBuf[:0]
	}
	for _, l := range nd.links {
		t := l.target
		if t == nil {
			continue
		}
		if many {
			word, bit := t.slot/64, uint64(1)<<(t.slot%64)
			if g.targetSeen[word]&bit != 0 {
				continue
			}
			g.targetSeen[word] |= bit
		} else if slices.Contains(out, t) {
			continue
		}
		out = append(out, t)
	}
	nd.targets = nil
	if len(out) > 0 {
		nd.targets = slices.Clone(out)
	}
	if many {
		for _, t := range out {
			g.targetSeen[t.slot/64] &^= 1 << (t.slot % 64)
		}
		clear(out) // no node kept alive by the buffer
		g.targetBuf = out[:0]
	}
}

// smallLinks: up to this many links, a scan of the targets found so far
// finds a repeated target faster than a set.
const smallLinks = 32

// normTags returns the distinct normalised forms of nd's tags.
func (nd *node) normTags() []string { return normalizeTags(nd.Tags) }

func newGraph() *graph {
	return &graph{
		notes:      map[string]*node{},
		tags:       map[string]*tagIndex{},
		unresolved: map[string]map[*node]struct{}{},
		entities:   map[string]nodeList{},
		search:     newSearchIndex(),

		keywordsReady: closedChan,
		vectorsReady:  closedChan,
	}
}

// startSearch starts the background load of g's search index (see
// searchLoad) unless it has started.
func (g *graph) startSearch() {
	if g.searchLoad != nil {
		g.searchOnce.Do(func() {
			g.searchStarted.Store(true)
			g.searchLoad()
		})
	}
}

// searchPending reports whether g's search index is on disk only: a graph
// loaded from disk whose background load has not started.
func (g *graph) searchPending() bool { return g.searchLoad != nil && !g.searchStarted.Load() }

// closedChan is a ready signal that needs no waiting.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// nodeList is a set of nodes kept sorted by ID.
type nodeList []*node

func compareNodes(a, b *node) int { return cmp.Compare(a.ID, b.ID) }

// index returns where id is in l, or where it would be inserted.
func (l nodeList) index(id string) int {
	return sort.Search(len(l), func(i int) bool { return l[i].ID >= id })
}

// contains reports whether l holds a node with this id.
func (l nodeList) contains(id string) bool {
	i := l.index(id)
	return i < len(l) && l[i].ID == id
}

// changes collects the membership changes a write makes to sorted lists
// and applies them in one merge per list when the write is done. Inserting
// into a hub's list of thousands one element at a time would copy it every
// time; a batch of 1000 notes touches it once. The changes are one flat
// list, grouped by list when applied, which the graph keeps from write to
// write: a map to a slice per list made every list's slice anew on every
// write (134 MB of a 100k first sync's garbage).
type changes struct {
	all   []listChange
	group []change // one list's changes, while applied
}

// listChange is a change of the list l, the seq-th the write recorded.
type listChange struct {
	l   *nodeList
	seq int32
	change
}

// change says that n must (present) or must not be in a list.
type change struct {
	n       *node
	present bool
}

// set records that n must (present) or must not be in l after the write;
// the last call for a pair wins.
func (c *changes) set(l *nodeList, n *node, present bool) {
	c.all = append(c.all, listChange{l, int32(len(c.all)), change{n, present}})
}

// apply merges every recorded change into its list, reports whether any
// list actually changed, and empties c for the next write.
func (c *changes) apply() bool {
	slices.SortFunc(c.all, func(a, b listChange) int {
		if a.l != b.l {
			return cmp.Compare(uintptr(unsafe.Pointer(a.l)), uintptr(unsafe.Pointer(b.l)))
		}
		return cmp.Compare(a.seq, b.seq) // in the order recorded: the last wins
	})
	changed := false
	for start := 0; start < len(c.all); {
		l := c.all[start].l
		group := c.group[:0]
		end := start
		for ; end < len(c.all) && c.all[end].l == l; end++ {
			group = append(group, c.all[end].change)
		}
		if l.merge(group) {
			changed = true
		}
		clear(group) // no node kept alive by the scratch
		c.group = group[:0]
		start = end
	}
	c.reset()
	return changed
}

// reset empties c, keeping its arrays.
func (c *changes) reset() {
	clear(c.all)
	c.all = c.all[:0]
}

// merge applies cs to l (the last change of a node wins) and reports
// whether l changed. It binary-searches each change's place and copies the
// runs between them, so a few changes to a list of thousands cost a few
// searches and one copy, not a comparison per element.
func (l *nodeList) merge(cs []change) bool {
	slices.SortStableFunc(cs, func(a, b change) int { return compareNodes(a.n, b.n) })
	old := *l
	type edit struct {
		change
		pos     int  // where n's ID is or would be in old
		replace bool // old[pos] holds n's ID
	}
	edits := make([]edit, 0, len(cs))
	from := 0
	for i, c := range cs {
		if i+1 < len(cs) && cs[i+1].n == c.n {
			continue // a later change of the same node wins
		}
		pos := from + old[from:].index(c.n.ID)
		from = pos
		hit := pos < len(old) && old[pos].ID == c.n.ID
		switch {
		case c.present && hit && old[pos] == c.n, !c.present && !(hit && old[pos] == c.n):
			continue // already so
		}
		edits = append(edits, edit{change: c, pos: pos, replace: hit})
	}
	if len(edits) == 0 {
		return false
	}
	merged := make(nodeList, 0, len(old)+len(edits))
	i := 0
	for _, e := range edits {
		merged = append(merged, old[i:e.pos]...)
		i = e.pos
		if e.replace {
			i++ // dropped, or replaced by a node with the same ID
		}
		if e.present {
			merged = append(merged, e.n)
		}
	}
	merged = append(merged, old[i:]...)
	*l = merged
	return true
}

// tagIndex returns the index of a normalised tag, creating it.
func (g *graph) tagIndex(tag string) *tagIndex {
	ti := g.tags[tag]
	if ti == nil {
		ti = &tagIndex{}
		g.tags[strings.Clone(tag)] = ti // tag may be a window into a note's strings
	}
	return ti
}

// newNode returns an empty node with a free slot.
func (g *graph) newNode() *node {
	nd := &node{}
	if n := len(g.freeSlots); n > 0 {
		nd.slot = g.freeSlots[n-1]
		g.freeSlots = g.freeSlots[:n-1]
	} else {
		nd.slot = g.slots
		g.slots++
		g.slotNodes = append(g.slotNodes, nil)
	}
	g.slotNodes[nd.slot] = nd
	return nd
}

// freeNode makes a deleted node's slot available again.
func (g *graph) freeNode(nd *node) {
	g.freeSlots = append(g.freeSlots, nd.slot)
	g.slotNodes[nd.slot] = nil
}

// bySlot returns the node with this slot, nil for none.
func (g *graph) bySlot(slot int) *node {
	if slot < 0 || slot >= len(g.slotNodes) {
		return nil
	}
	return g.slotNodes[slot]
}

func (g *graph) addUnresolved(key string, n *node) {
	set := g.unresolved[key]
	if set == nil {
		set = map[*node]struct{}{}
		g.unresolved[strings.Clone(key)] = set // key may be a window into a note's strings
	}
	set[n] = struct{}{}
}

func (g *graph) removeUnresolved(key string, n *node) {
	if set := g.unresolved[key]; set != nil {
		delete(set, n)
		if len(set) == 0 {
			delete(g.unresolved, key)
		}
	}
}

// normalizeTags returns the distinct normalised forms of tags.
func normalizeTags(tags []string) []string {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		if n := core.NormalizeTag(t); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
