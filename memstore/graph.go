package memstore

import (
	"cmp"
	"slices"
	"sort"
	"sync"
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
	// entities maps an entity ID to the notes carrying it, by note ID; the
	// first is the entity (see core.EntityReader).
	entities map[string]nodeList

	// version changes whenever the set of notes or of edges does; hub
	// caches are valid for one version.
	version uint64
	hubs    [3]hubCache // by hubSlot(metric)

	// Every node has a slot, a small integer reused after deletion, so
	// searches can mark nodes in flat arrays (see search.go) instead of
	// maps.
	slots     int32   // slots handed out so far
	freeSlots []int32 // slots of deleted nodes
	scratch   sync.Pool

	search *searchIndex // embeddings and keyword index, see search.go
	// keywordsReady is closed once the keyword index holds every note: a
	// graph loaded from disk fills it in the background (buildKeywords).
	keywordsReady chan struct{}
	vectorsReady  chan struct{} // closed once the vectors are loaded, likewise
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
type node struct {
	// Searches touch only these first fields of most nodes they visit:
	// together they fit one cache line.
	slot int32    // see graph.slots
	gen  uint32   // counts the writes of this note (see buildKeywords)
	out  nodeList // distinct notes this one links to
	in   nodeList // distinct notes linking to this one

	note     core.Note // the stored copy; link Targets kept current
	normTags []string  // distinct normalised tags, to undo them on change
	// links are what a view shows of this note's links (core.ViewOf): its
	// distinct link targets in the order of their first link, with their
	// IDs and titles copied into one allocation per note. A view reads them
	// in one sweep of memory instead of visiting every target: at 100k
	// notes each visit was a cache miss, and a get_node depth=1 makes
	// hundreds. A write replaces the list (never changes it in place), so
	// views may share it; it is rebuilt when a link's target changes and
	// when a target's title does.
	links []core.LinkInfo
}

// refreshLinks rebuilds nd.links from nd.note.Links; every write that
// changes a link Target, or the title of a note nd links to, calls it once
// the graph's notes are current.
func (g *graph) refreshLinks(nd *node) {
	var targets []*node
	for _, id := range nd.note.LinkTargets() { // distinct IDs: distinct nodes
		if t := g.notes[id]; t != nil {
			targets = append(targets, t)
		}
	}
	setViewLinks(nd, targets)
}

// setViewLinks sets nd.links to targets, nd's distinct link targets in
// the order of their first link.
func setViewLinks(nd *node, targets []*node) {
	size := 0
	for _, t := range targets {
		size += len(t.note.ID) + len(t.note.Title)
	}
	if len(targets) == 0 {
		nd.links = nil
		return
	}
	buf := make([]byte, 0, size)
	for _, t := range targets {
		buf = append(buf, t.note.ID...)
		buf = append(buf, t.note.Title...)
	}
	arena := unsafe.String(unsafe.SliceData(buf), len(buf)) // buf is never written again
	links := make([]core.LinkInfo, len(targets))
	at := 0
	for i, t := range targets {
		id, title := len(t.note.ID), len(t.note.Title)
		links[i] = core.LinkInfo{ID: arena[at : at+id], Title: arena[at+id : at+id+title]}
		at += id + title
	}
	nd.links = links
}

// storeIDAndTitle keeps a note's ID and title in one allocation: a view
// reads both for every link target, and at 100k notes two places in
// memory were two cache misses per link.
func storeIDAndTitle(n *core.Note) {
	both := n.ID + n.Title
	n.ID, n.Title = both[:len(n.ID)], both[len(n.ID):]
}

func (n *node) id() string { return n.note.ID }

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

// closedChan is a ready signal that needs no waiting.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// nodeList is a set of nodes kept sorted by ID.
type nodeList []*node

func compareNodes(a, b *node) int { return cmp.Compare(a.id(), b.id()) }

// index returns where id is in l, or where it would be inserted.
func (l nodeList) index(id string) int {
	return sort.Search(len(l), func(i int) bool { return l[i].id() >= id })
}

// contains reports whether l holds a node with this id.
func (l nodeList) contains(id string) bool {
	i := l.index(id)
	return i < len(l) && l[i].id() == id
}

// changes collects the membership changes a write makes to sorted lists
// and applies them in one merge per list when the write is done. Inserting
// into a hub's list of thousands one element at a time would copy it every
// time; a batch of 1000 notes touches it once.
type changes map[*nodeList][]change

// change says that n must (present) or must not be in a list.
type change struct {
	n       *node
	present bool
}

// set records that n must (present) or must not be in l after the write;
// the last call for a pair wins.
func (c changes) set(l *nodeList, n *node, present bool) {
	c[l] = append(c[l], change{n, present})
}

// apply merges every recorded change into its list and reports whether any
// list actually changed.
func (c changes) apply() bool {
	changed := false
	for l, cs := range c {
		if l.merge(cs) {
			changed = true
		}
	}
	return changed
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
		pos := from + old[from:].index(c.n.id())
		from = pos
		hit := pos < len(old) && old[pos].id() == c.n.id()
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
		g.tags[tag] = ti
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
	}
	return nd
}

// freeNode makes a deleted node's slot available again.
func (g *graph) freeNode(nd *node) { g.freeSlots = append(g.freeSlots, nd.slot) }

func (g *graph) addUnresolved(key string, n *node) {
	set := g.unresolved[key]
	if set == nil {
		set = map[*node]struct{}{}
		g.unresolved[key] = set
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
