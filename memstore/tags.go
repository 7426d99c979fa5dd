package memstore

import (
	"context"
	"fmt"
	"math"
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

// allTags finds the notes matching every tag among those matching the
// tag that fewest notes match: in each of that tag's lists (its own and
// its nested tags'), in ID order, the first limit notes whose own tags
// match every tag, then the first limit of those merged. A note is in
// the list of each of its normalised tags, so matching its tags is being
// in one of a tag's lists; and a note among the first limit of the
// answer is among the first limit found in its own list. No list is
// merged whole or searched: with a tag that many notes match through
// nested tags, merging its lists (thousands of notes, an ID comparison
// each, both IDs a cache miss away) was most of a search_by_tags call in
// mode all (docs/BENCHMARKS.md).
func (g *graph) allTags(tags []string, limit int) []*node {
	want := normalizeTags(tags)
	var fewest [][]*node
	least := -1
	for _, t := range want {
		lists := g.tagLists(t)
		n := 0
		for _, l := range lists {
			n += len(l)
		}
		if n == 0 {
			return nil
		}
		if least < 0 || n < least {
			fewest, least = lists, n
		}
	}
	found := make([][]*node, 0, len(fewest))
	for _, l := range fewest {
		var in []*node
		for _, n := range l {
			if len(in) >= limit {
				break
			}
			if n.hasAllTags(want) {
				in = append(in, n)
			}
		}
		found = append(found, in)
	}
	if len(found) == 1 {
		return found[0]
	}
	return core.MergeSorted(found, byNodeID, limit)
}

// hasAllTags reports whether nd carries, for every normalised tag of
// want, that tag or one nested under it (core.TagMatches).
func (nd *node) hasAllTags(want []string) bool {
	for _, t := range want {
		found := false
		for _, tag := range nd.Tags {
			if core.TagMatches(core.NormalizeTag(tag), t) {
				found = true
				break
			}
		}
		if !found {
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
