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
	if len(tags) > 0 {
		candidates := notesOnly(g.anyTag(tags, math.MaxInt))
		i, err := pickIndex(pick, len(candidates))
		if i < 0 || err != nil {
			return nil, err
		}
		return candidates[i], nil
	}
	files := g.filePositions()
	i, err := pickIndex(pick, len(g.all)-len(files))
	if i < 0 || err != nil {
		return nil, err
	}
	// The i-th note is the i-th node once the attachments and canvases
	// before it are stepped over.
	for _, f := range files {
		if f > i {
			break
		}
		i++
	}
	return g.all[i], nil
}

// notesOnly returns list without its attachments and canvases, list
// itself (which may be an index's own list, never modified) when it has
// none: the vault gives them no tags.
func notesOnly(list []*node) []*node {
	i := slices.IndexFunc(list, func(nd *node) bool { return core.IsFileNode(nd.ID) })
	if i < 0 {
		return list
	}
	out := slices.Clone(list[:i])
	for _, nd := range list[i+1:] {
		if !core.IsFileNode(nd.ID) {
			out = append(out, nd)
		}
	}
	return out
}

// pickIndex calls pick(n) when n > 0 and checks its answer; -1 when there
// is no candidate.
func pickIndex(pick func(n int) int, n int) (int, error) {
	if n == 0 {
		return -1, nil
	}
	i := pick(n)
	if i < 0 || i >= n {
		return -1, fmt.Errorf("memstore: random note: %w", core.InvalidArgument("pick returned %d for %d candidates", i, n))
	}
	return i, nil
}

// filePositions returns the ascending positions in g.all of the nodes that
// are not notes (attachments, canvases: core.IsFileNode), which RandomNote
// steps over. It is kept for one version of the graph, filled by the first
// call after a change, under g.mu held for reading.
func (g *graph) filePositions() []int {
	c := &g.files
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.built && c.version == g.version {
		return c.positions
	}
	c.positions = c.positions[:0:0]
	for i, nd := range g.all {
		if core.IsFileNode(nd.ID) {
			c.positions = append(c.positions, i)
		}
	}
	c.version, c.built = g.version, true
	return c.positions
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
