package view

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
)

// node is what the view keeps of a note: enough to draw it and to tell
// whether its cached title and tags still hold (Path and Hash).
type node struct {
	ID, Path, Hash, Title string
	Tags                  []string
	Out                   []string // distinct resolved link targets, first-seen order
	Ghosts                []string // distinct keys of unresolved links, first-seen order
	X, Y                  float64
	Placed                bool // X and Y hold a position (from the layout or the cache)
}

// setLinks sets Out and Ghosts from a note's links as the store holds them.
func (n *node) setLinks(links []core.Link) {
	n.Out, n.Ghosts = n.Out[:0], n.Ghosts[:0]
	for _, l := range links {
		if l.Target != "" {
			if !slices.Contains(n.Out, l.Target) {
				n.Out = append(n.Out, l.Target)
			}
		} else if l.Key != "" && !slices.Contains(n.Ghosts, l.Key) {
			n.Ghosts = append(n.Ghosts, l.Key)
		}
	}
}

// topFolder is the first segment of a vault-relative path, "" for a note
// at the vault's root.
func topFolder(path string) string {
	if i := strings.IndexByte(path, '/'); i > 0 {
		return path[:i]
	}
	return ""
}

// snapshot is the graph as drawn at one revision: nodes numbered by ID
// ascending (the numbering PageRank uses), distinct edges, in-degree,
// PageRank, ghosts, folders and tags. It is immutable once built.
type snapshot struct {
	rev    uint64
	nodes  []*node // by ID ascending; shared with the model, read only under its lock or while unchanged
	index  map[string]int32
	edges  []int32 // pairs (source, target), distinct, sorted
	in     []int32 // distinct in-degree
	out    []int32 // distinct out-degree
	rank   []float64
	ghosts []string // distinct unresolved keys, sorted
	gEdges []int32  // pairs (note, ghost index)

	folders  []string // top folders by note count, then name
	folderOf []int32
	tags     []string  // tags by note count, then name (first spelling seen)
	tagsOf   [][]int32 // each note's tags as indexes into tags
}

// buildSnapshot numbers nodes and derives everything drawn from them.
func buildSnapshot(rev uint64, nodes map[string]*node) *snapshot {
	s := &snapshot{rev: rev, nodes: make([]*node, 0, len(nodes)), index: make(map[string]int32, len(nodes))}
	for _, n := range nodes {
		s.nodes = append(s.nodes, n)
	}
	slices.SortFunc(s.nodes, func(a, b *node) int { return strings.Compare(a.ID, b.ID) })
	ids := make([]string, len(s.nodes))
	for i, n := range s.nodes {
		s.index[n.ID] = int32(i)
		ids[i] = n.ID
	}
	ghostIndex := map[string]int32{}
	var ghostKeys []string
	var named [][2]string
	for i, n := range s.nodes {
		for _, t := range n.Out {
			if j, ok := s.index[t]; ok {
				s.edges = append(s.edges, int32(i), j)
				named = append(named, [2]string{n.ID, t})
			}
		}
		for _, k := range n.Ghosts {
			if _, ok := ghostIndex[k]; !ok {
				ghostIndex[k] = -1
				ghostKeys = append(ghostKeys, k)
			}
		}
	}
	// Ghosts sorted by key; indexes assigned after the sort.
	slices.Sort(ghostKeys)
	for i, k := range ghostKeys {
		ghostIndex[k] = int32(i)
	}
	s.ghosts = ghostKeys
	for i, n := range s.nodes {
		for _, k := range n.Ghosts {
			s.gEdges = append(s.gEdges, int32(i), ghostIndex[k])
		}
	}
	s.in = make([]int32, len(s.nodes))
	s.out = make([]int32, len(s.nodes))
	for e := 0; e < len(s.edges); e += 2 {
		s.out[s.edges[e]]++
		s.in[s.edges[e+1]]++
	}
	// The same function, numbering and edge set as the stores' get_hubs
	// by PageRank: the sizes match the tool's ranks.
	scores := core.PageRankScores(ids, named)
	s.rank = make([]float64, len(s.nodes))
	for i, id := range ids {
		s.rank[i] = scores[id]
	}
	folders, folderOf := rankLabels(s.nodes, func(n *node) []string { return []string{topFolder(n.Path)} }, false)
	s.folders, s.folderOf = folders, make([]int32, len(s.nodes))
	for i, f := range folderOf { // exactly one folder per note
		s.folderOf[i] = f[0]
	}
	s.tags, s.tagsOf = rankLabels(s.nodes, func(n *node) []string { return n.Tags }, true)
	return s
}

// rankLabels numbers the labels (folders or tags) of nodes by how many
// nodes carry them, most first, then by name; tags compare
// case-insensitively (the first spelling seen is shown). It returns the
// labels and each node's labels as indexes into them.
func rankLabels(nodes []*node, labels func(*node) []string, fold bool) ([]string, [][]int32) {
	count := map[string]int{}
	spelling := map[string]string{}
	key := func(l string) string {
		if fold {
			return core.NormalizeTag(l)
		}
		return l
	}
	for _, n := range nodes {
		for _, l := range labels(n) {
			k := key(l)
			if _, ok := spelling[k]; !ok {
				spelling[k] = l
			}
			count[k]++
		}
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(count[b]-count[a], strings.Compare(a, b)) })
	index := make(map[string]int32, len(keys))
	names := make([]string, len(keys))
	for i, k := range keys {
		index[k] = int32(i)
		names[i] = spelling[k]
	}
	of := make([][]int32, len(nodes))
	for i, n := range nodes {
		for _, l := range labels(n) {
			j := index[key(l)]
			if !slices.Contains(of[i], j) {
				of[i] = append(of[i], j)
			}
		}
	}
	return names, of
}

// readChunk is how many notes one GetNotes call asks for.
const readChunk = 256

// loadNodes reads every note of the project through the store contract:
// NoteStates for IDs, paths, hashes and links (no content), and GetNotes
// for the titles and tags of notes the cache does not hold at the same
// path and hash. Positions come from the cache whatever the hash: a note
// edited in place stays where it was drawn.
func loadNodes(ctx context.Context, st Store, project string, cached map[string]cacheEntry) (map[string]*node, error) {
	nodes := map[string]*node{}
	var unknown []string
	err := st.NoteStates(ctx, project, func(ns core.NoteState) error {
		n := &node{ID: ns.ID, Path: ns.Path, Hash: ns.Hash}
		n.setLinks(ns.Links)
		if c, ok := cached[ns.ID]; ok {
			n.X, n.Y, n.Placed = c.X, c.Y, true
			if c.Path == ns.Path && c.Hash == ns.Hash && ns.Hash != "" {
				n.Title, n.Tags = c.Title, c.Tags
			}
		}
		if n.Title == "" {
			unknown = append(unknown, ns.ID)
		}
		nodes[ns.ID] = n
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("view: read the notes' states: %w", err)
	}
	slices.Sort(unknown)
	for start := 0; start < len(unknown); start += readChunk {
		chunk := unknown[start:min(start+readChunk, len(unknown))]
		notes, err := st.GetNotes(ctx, project, chunk)
		if err != nil {
			return nil, fmt.Errorf("view: read titles and tags: %w", err)
		}
		for _, note := range notes {
			if n := nodes[note.ID]; n != nil {
				n.Title, n.Tags = note.Title, note.Tags
			}
		}
	}
	for _, n := range nodes {
		if n.Title == "" { // deleted between the two reads: the next change fixes it
			n.Title = strings.TrimSuffix(n.ID, ".md")
		}
	}
	return nodes, nil
}
