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
// compared case-insensitively, by ID ascending. An empty tag list matches
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

// anyTag merges the ID-sorted lists of tags, each note once, stopping at
// limit.
func (g *graph) anyTag(tags []string, limit int) []*node {
	var lists [][]*node
	for _, t := range normalizeTags(tags) {
		if ti := g.tags[t]; ti != nil {
			lists = append(lists, ti.list)
		}
	}
	return core.MergeSorted(lists, func(a, b *node) int { return strings.Compare(a.id(), b.id()) }, limit)
}

// allTags walks the shortest tag list and keeps the notes in every other
// tag's set, stopping at limit.
func (g *graph) allTags(tags []string, limit int) []*node {
	want := normalizeTags(tags)
	indexes := make([]*tagIndex, len(want))
	for i, t := range want {
		if indexes[i] = g.tags[t]; indexes[i] == nil {
			return nil
		}
	}
	slices.SortFunc(indexes, func(a, b *tagIndex) int { return len(a.list) - len(b.list) })
	var out []*node
	for _, n := range indexes[0].list {
		if len(out) >= limit {
			break
		}
		if inAll(n, indexes[1:]) {
			out = append(out, n)
		}
	}
	return out
}

func inAll(n *node, indexes []*tagIndex) bool {
	for _, ti := range indexes {
		if i := ti.list.index(n.id()); i == len(ti.list) || ti.list[i] != n {
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
	views, err := s.views(project, g.tagged(tags, mode, limit), true)
	if err != nil {
		return nil, fmt.Errorf("memstore: notes by tags: %w", err)
	}
	return views, nil
}

// RandomView is RandomNote as a view, under one read lock
// (core.ContextReader).
func (s *Store) RandomView(ctx context.Context, project string, tags []string, pick func(n int) int) (*core.NodeView, error) {
	return withRandomNode(ctx, s, project, tags, pick, func(nd *node) (core.NodeView, error) {
		v, err := s.views(project, []*node{nd}, false)
		if err != nil {
			return core.NodeView{}, err
		}
		return v[0], nil
	})
}
