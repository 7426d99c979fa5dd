package memstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/keyword"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// loadGraph reads a project's notes from disk into a new graph (nil when
// the project holds none): its note records, then the graph built from
// them in one pass, then its vectors. The keyword index, which needs every
// note's text, is filled in the background (buildKeywords); keyword
// searches wait for it. The caller holds s.mu.
func (s *Store) loadGraph(project string) (*graph, error) {
	var notes []core.Note
	err := s.kv.View(func(tx *kv.Tx) error {
		return tx.ForEach(notesBucket(project), func(id string, rec []byte) error {
			n, err := decodeNote(project, id, rec)
			if err != nil {
				return err
			}
			notes = append(notes, n)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("load notes of %s: %w", project, err)
	}
	if len(notes) == 0 {
		return nil, nil
	}
	g := newGraph()
	g.build(notes)
	if err := s.loadVectors(project, g.search); err != nil {
		return nil, fmt.Errorf("load vectors of %s: %w", project, err)
	}
	for id, sv := range g.search.parked {
		if g.notes[id] != nil {
			delete(g.search.parked, id)
			g.search.set(id, sv.Model, sv.Hash, decodeVector(sv.Vector))
		}
	}
	g.keywordsReady = make(chan struct{})
	go s.buildKeywords(project, g)
	return g, nil
}

// build fills an empty graph with notes as read from disk: the targets of
// their links are what the store resolved when it wrote them (a target
// that is not there, which a cut-off staged write can leave, is
// unresolved). It does in one pass what upsert does by the batch: every
// list comes out sorted because the notes are visited in ID order.
func (g *graph) build(notes []core.Note) {
	if !slices.IsSortedFunc(notes, func(a, b core.Note) int { return cmpString(a.ID, b.ID) }) {
		slices.SortFunc(notes, func(a, b core.Note) int { return cmpString(a.ID, b.ID) })
	}
	nodes := make([]node, len(notes)) // one allocation for every node
	g.all = make(nodeList, len(notes))
	g.notes = make(map[string]*node, len(notes))
	for i := range notes {
		nd := &nodes[i]
		nd.note, nd.slot = notes[i], int32(i)
		g.all[i] = nd
		g.notes[nd.id()] = nd
	}
	g.slots = int32(len(notes))
	var targets []*node
	for _, nd := range g.all {
		targets = targets[:0]
		for i := range nd.note.Links {
			l := &nd.note.Links[i]
			if l.Target != "" {
				if t := g.notes[l.Target]; t != nil {
					if !slices.Contains(targets, t) {
						targets = append(targets, t)
					}
					continue
				}
				l.Target = ""
			}
			g.addUnresolved(l.Key, nd)
		}
		if len(targets) > 0 {
			nd.out = slices.Clone(targets)
			slices.SortFunc(nd.out, compareNodes)
			for _, t := range nd.out {
				t.in = append(t.in, nd) // nd comes in ID order: t.in stays sorted
			}
		}
		nd.normTags = normalizeTags(nd.note.Tags)
		for _, t := range nd.normTags {
			ti := g.tagIndex(t)
			ti.list = append(ti.list, nd)
			ti.set[nd] = struct{}{}
		}
		g.indexEntity(nd)
	}
	for _, nd := range g.all {
		nd.in = slices.Clip(nd.in)
		g.refreshLinks(nd)
	}
	g.version++
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// keywordChunk is how many notes buildKeywords reads in one transaction.
const keywordChunk = 512

// buildKeywords fills the keyword index of a graph loaded from disk with
// every note's title and text, read chunk by chunk, and then closes
// g.keywordsReady. A note written meanwhile (its gen moved) is skipped:
// its write indexed it already.
func (s *Store) buildKeywords(project string, g *graph) {
	defer close(g.keywordsReady)
	g.mu.RLock()
	nodes := slices.Clone(g.all)
	g.mu.RUnlock()
	type item struct {
		nd    *node
		gen   uint32
		title string
	}
	for start := 0; start < len(nodes); start += keywordChunk {
		part := nodes[start:min(start+keywordChunk, len(nodes))]
		items := make([]item, 0, len(part))
		g.mu.RLock()
		for _, nd := range part {
			if g.notes[nd.id()] == nd {
				items = append(items, item{nd, nd.gen, nd.note.Title})
			}
		}
		bodies, err := s.bodiesOf(project, part, false, false)
		g.mu.RUnlock()
		if err != nil {
			// The store is closed or the disk fails: searches see what is
			// indexed; the next load tries again.
			return
		}
		analyses := make([]keyword.Analysis, len(items))
		at := 0
		for i, nd := range part {
			if at < len(items) && items[at].nd == nd {
				analyses[at] = keyword.Analyze(items[at].title, bodies[i].content)
				at++
			}
		}
		g.mu.Lock()
		for i, it := range items {
			if g.notes[it.nd.id()] == it.nd && it.nd.gen == it.gen {
				g.search.keywords.PutAnalyzed(it.nd.id(), analyses[i])
			}
		}
		g.mu.Unlock()
	}
}

// keywordsLoaded waits until g's keyword index holds every note.
func (g *graph) keywordsLoaded(ctx context.Context) error {
	select {
	case <-g.keywordsReady:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
