package memory

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
)

// GraphNode is a memory reached by memory_inspect_graph.
type GraphNode struct {
	ID         string  `json:"id"`
	Content    string  `json:"content"`
	MemoryType string  `json:"memory_type"`
	Namespace  string  `json:"namespace"`
	Confidence float64 `json:"confidence"`
	Depth      int     `json:"depth"`
	Score      float64 `json:"score"`
}

// GraphEdge is a relation between two reached memories.
type GraphEdge struct {
	Source       string  `json:"source"`
	Target       string  `json:"target"`
	RelationType string  `json:"relation_type"`
	Weight       float64 `json:"weight"`
}

// GraphPath is the best-scoring path from the root to a reached memory.
type GraphPath struct {
	Nodes         []string `json:"nodes"`
	RelationTypes []string `json:"relation_types"`
	Score         float64  `json:"score"`
}

// Graph is memory_inspect_graph's answer before formatting.
type Graph struct {
	Root  string      `json:"root"`
	Nodes []GraphNode `json:"nodes"`
	Edges []GraphEdge `json:"edges"`
	Paths []GraphPath `json:"paths"`
}

// Inspect walks the relations around id up to maxDepth hops, following
// relations in either direction. A node's score is the best, over the
// paths of at most maxDepth hops that reach it, of the product of the
// weights along the path times decay^hops: the root scores 1, a neighbour
// over a 0.8 edge with decay 0.7 scores 0.56, and a longer path wins over
// a shorter one when it scores more. A node's depth is its fewest hops
// from the root. Nodes are ordered by depth, then score descending, then
// ID; edges are every relation between two reached nodes.
//
// WalkOptions narrow the walk: Direction "outgoing" follows relations from
// source to target only, "incoming" only backwards ("" or "both": either);
// EdgeTypes, when not empty, are the relation types followed and listed.
func (s *Service) Inspect(ctx context.Context, id string, maxDepth int, decay float64, opts ...WalkOptions) (Graph, error) {
	var o WalkOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	root, err := s.Get(ctx, id)
	if err != nil {
		return Graph{}, err
	}
	type reach struct {
		depth int
		score float64
		path  GraphPath
	}
	best := map[string]reach{id: {0, 1, GraphPath{Nodes: []string{id}, RelationTypes: []string{}, Score: 1}}}
	changed := []string{id}
	// Round d extends, by one hop, the paths that improved in round d-1:
	// after it, every score is the best over paths of at most d hops.
	for depth := 1; depth <= maxDepth && len(changed) > 0; depth++ {
		rels, err := s.store.MemoryRelations(ctx, s.project, changed)
		if err != nil {
			return Graph{}, err
		}
		prev := make(map[string]reach, len(changed))
		for _, c := range changed {
			prev[c] = best[c]
		}
		next := map[string]bool{}
		for _, r := range rels {
			if !o.follows(r.Type) {
				continue
			}
			for _, end := range o.ends(r) {
				from, to := end[0], end[1]
				src, ok := prev[from]
				if !ok {
					continue
				}
				score := src.score * r.Weight * decay
				cur, seen := best[to]
				if seen && score <= cur.score {
					continue
				}
				p := GraphPath{Nodes: append(slices.Clone(src.path.Nodes), to),
					RelationTypes: append(slices.Clone(src.path.RelationTypes), r.Type), Score: round4(score)}
				d := depth
				if seen {
					d = cur.depth
				}
				best[to] = reach{d, score, p}
				next[to] = true
			}
		}
		changed = changed[:0]
		for n := range next {
			changed = append(changed, n)
		}
		slices.Sort(changed)
	}
	ids := make([]string, 0, len(best))
	for n := range best {
		ids = append(ids, n)
	}
	slices.Sort(ids)
	g := Graph{Root: id, Nodes: []GraphNode{}, Edges: []GraphEdge{}, Paths: []GraphPath{}}
	mems := map[string]*core.Memory{id: root}
	for _, n := range ids {
		if n == id {
			continue
		}
		m, err := s.store.GetMemory(ctx, s.project, n)
		if err != nil {
			continue // deleted while walking
		}
		mems[n] = m
	}
	for _, n := range ids {
		m, ok := mems[n]
		if !ok {
			continue
		}
		r := best[n]
		g.Nodes = append(g.Nodes, GraphNode{ID: n, Content: m.Content, MemoryType: m.Type, Namespace: m.Namespace,
			Confidence: ToFloat(m.Confidence), Depth: r.depth, Score: round4(r.score)})
		if n != id {
			g.Paths = append(g.Paths, r.path)
		}
	}
	slices.SortFunc(g.Nodes, func(a, b GraphNode) int {
		if a.Depth != b.Depth {
			return a.Depth - b.Depth
		}
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	order := map[string]int{}
	for i, n := range g.Nodes {
		order[n.ID] = i
	}
	slices.SortFunc(g.Paths, func(a, b GraphPath) int { return order[a.Nodes[len(a.Nodes)-1]] - order[b.Nodes[len(b.Nodes)-1]] })
	rels, err := s.store.MemoryRelations(ctx, s.project, ids)
	if err != nil {
		return Graph{}, err
	}
	for _, r := range rels { // ordered by source, target, type
		_, okFrom := mems[r.From]
		_, okTo := mems[r.To]
		if okFrom && okTo && o.follows(r.Type) {
			g.Edges = append(g.Edges, GraphEdge{Source: r.From, Target: r.To, RelationType: r.Type, Weight: r.Weight})
		}
	}
	return g, nil
}

func round4(f float64) float64 { return math.Round(f*10000) / 10000 }

// WalkOptions narrow memory_inspect_graph's walk (see Inspect).
type WalkOptions struct {
	Direction string   // DirectionBoth ("" too), DirectionOutgoing or DirectionIncoming
	EdgeTypes []string // relation types followed; empty: every type
}

func (o WalkOptions) follows(relType string) bool {
	return len(o.EdgeTypes) == 0 || slices.Contains(o.EdgeTypes, relType)
}

// ends are the (from, to) steps a relation allows in o's direction.
func (o WalkOptions) ends(r core.MemoryRelation) [][2]string {
	switch o.Direction {
	case DirectionOutgoing:
		return [][2]string{{r.From, r.To}}
	case DirectionIncoming:
		return [][2]string{{r.To, r.From}}
	default:
		return [][2]string{{r.From, r.To}, {r.To, r.From}}
	}
}

// Mermaid renders g as a Mermaid flowchart: one node per memory labelled
// with its type and the start of its content, one arrow per relation
// labelled with its type and weight.
func Mermaid(g Graph) string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	key := map[string]string{}
	for i, n := range g.Nodes {
		key[n.ID] = fmt.Sprintf("m%d", i)
		label := n.Content
		if r := []rune(label); len(r) > 40 {
			label = string(r[:40]) + "…"
		}
		fmt.Fprintf(&b, "    %s[\"%s: %s\"]\n", key[n.ID], n.MemoryType, mermaidEscape(label))
	}
	for _, e := range g.Edges {
		fmt.Fprintf(&b, "    %s -->|%s %s| %s\n", key[e.Source], e.RelationType, Format(FromFloat(e.Weight)), key[e.Target])
	}
	return b.String()
}

// mermaidEscape makes text safe inside a quoted Mermaid label.
func mermaidEscape(s string) string {
	r := strings.NewReplacer("\"", "#quot;", "\n", " ", "\r", " ", "|", "#124;", "<", "#lt;", ">", "#gt;")
	return r.Replace(s)
}
