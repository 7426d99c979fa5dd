package memstore

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
)

// NotesByTags returns up to limit notes carrying any or all of tags,
// compared case-insensitively, a tag also matching the tags nested under
// it (core.TagMatches), by ID ascending. An empty tag list matches
// nothing; limit <= 0 means no limit.
func (s *Store) NotesByTags(ctx context.Context, project string, tags []string, mode core.TagMode, limit int) ([]core.Note, error) {
	if !mode.Valid() {
		return nil, fmt.Errorf("memstore: notes by tags: %w", core.InvalidArgument("unknown tag mode %q", mode))
	}
	g, unlock, err := s.reader(ctx, "notes by tags", project)
	defer unlock()
	if err != nil || g == nil || len(tags) == 0 {
		return nil, err
	}
	notes, err := s.fullNotes(project, g.tagged(tags, mode, limit))
	if err != nil {
		return nil, fmt.Errorf("memstore: notes by tags: %w", err)
	}
	return notes, nil
}

// tagged lists the notes carrying any or all of tags, by ID, at most limit
// (<= 0: all).
func (g *graph) tagged(tags []string, mode core.TagMode, limit int) []*node {
	if limit <= 0 {
		limit = math.MaxInt
	}
	if mode == core.TagModeAny {
		return g.anyTag(tags, limit)
	}
	return g.allTags(tags, limit)
}

// tagLists returns the ID-sorted lists of the notes carrying the
// normalised tag t or a tag nested under it (core.TagMatches: "go/lang"
// for "go"). Nested tags are found by a walk over the tag names, a few
// thousand in a large vault.
func (g *graph) tagLists(t string) [][]*node {
	var lists [][]*node
	if ti := g.tags[t]; ti != nil {
		lists = append(lists, ti.list)
	}
	for name, ti := range g.tags {
		if name != t && core.TagMatches(name, t) {
			lists = append(lists, ti.list)
		}
	}
	return lists
}

func byNodeID(a, b *node) int { return strings.Compare(a.ID, b.ID) }

// anyTag merges the ID-sorted lists of tags (and their nested tags), each
// note once, stopping at limit.
func (g *graph) anyTag(tags []string, limit int) []*node {
	var lists [][]*node
	for _, t := range normalizeTags(tags) {
		lists = append(lists, g.tagLists(t)...)
	}
	return core.MergeSorted(lists, byNodeID, limit)
}

// allTags walks the shortest list of the notes matching one tag and keeps
// the notes found in every other tag's list, stopping at limit.
func (g *graph) allTags(tags []string, limit int) []*node {
	want := normalizeTags(tags)
	sets := make([]nodeList, len(want))
	for i, t := range want {
		lists := g.tagLists(t)
		switch len(lists) {
		case 0:
			return nil
		case 1:
			sets[i] = lists[0]
		default:
			sets[i] = core.MergeSorted(lists, byNodeID, 0)
		}
	}
	slices.SortFunc(sets, func(a, b nodeList) int { return len(a) - len(b) })
	var out []*node
	for _, n := range sets[0] {
		if len(out) >= limit {
			break
		}
		if inAll(n, sets[1:]) {
			out = append(out, n)
		}
	}
	return out
}

func inAll(n *node, sets []nodeList) bool {
	for _, l := range sets {
		if i := l.index(n.ID); i == len(l) || l[i] != n {
			return false
		}
	}
	return true
}

// RandomNote returns the candidate at index pick(n) in ID order, among all
// notes or those carrying any of tags; nil, without calling pick, when there
// is none. An index outside [0, n) is an invalid argument.
func (s *Store) RandomNote(ctx context.Context, project string, tags []string, pick func(n int) int) (*core.Note, error) {
	return withRandomNode(ctx, s, project, tags, pick, func(nd *node) (core.Note, error) {
		notes, err := s.fullNotes(project, []*node{nd})
		if err != nil {
			return core.Note{}, err
		}
		return notes[0], nil
	})
}

// withRandomNode is what of RandomNote's pick shape returns, read under the
// graph's lock; nil when there is none.
func withRandomNode[T any](ctx context.Context, s *Store, project string, tags []string, pick func(n int) int, shape func(*node) (T, error)) (*T, error) {
	g, unlock, err := s.reader(ctx, "random note", project)
	defer unlock()
	if err != nil {
		return nil, err
	}
	nd, err := g.randomNode(tags, pick)
	if nd == nil || err != nil {
		return nil, err
	}
	v, err := shape(nd)
	if err != nil {
		return nil, fmt.Errorf("memstore: random note: %w", err)
	}
	return &v, nil
}

// randomNode is RandomNote's pick; g may be nil (no project yet).
func (g *graph) randomNode(tags []string, pick func(n int) int) (*node, error) {
	if pick == nil {
		return nil, fmt.Errorf("memstore: random note: %w", core.InvalidArgument("pick is nil"))
	}
	if g == nil {
		return nil, nil
	}
	candidates := []*node(g.all)
	if len(tags) > 0 {
		candidates = g.anyTag(tags, math.MaxInt)
	}
	if len(candidates) == 0 {
		return nil, nil
	}
	i := pick(len(candidates))
	if i < 0 || i >= len(candidates) {
		return nil, fmt.Errorf("memstore: random note: %w", core.InvalidArgument("pick returned %d for %d candidates", i, len(candidates)))
	}
	return candidates[i], nil
}

// TaggedViews is NotesByTags as views, under one read lock
// (core.ContextReader).
func (s *Store) TaggedViews(ctx context.Context, project string, tags []string, mode core.TagMode, limit int) ([]core.NodeView, error) {
	if !mode.Valid() {
		return nil, fmt.Errorf("memstore: notes by tags: %w", core.InvalidArgument("unknown tag mode %q", mode))
	}
	g, unlock, err := s.reader(ctx, "notes by tags", project)
	defer unlock()
	if err != nil || g == nil || len(tags) == 0 {
		return []core.NodeView{}, err
	}
	views, err := s.views(project, g.tagged(tags, mode, limit), 0)
	if err != nil {
		return nil, fmt.Errorf("memstore: notes by tags: %w", err)
	}
	return views, nil
}

// RandomView is RandomNote as a view, under one read lock
// (core.ContextReader).
func (s *Store) RandomView(ctx context.Context, project string, tags []string, pick func(n int) int) (*core.NodeView, error) {
	return withRandomNode(ctx, s, project, tags, pick, func(nd *node) (core.NodeView, error) {
		v, err := s.views(project, []*node{nd}, 1)
		if err != nil {
			return core.NodeView{}, err
		}
		return v[0], nil
	})
}
