package core

import (
	"cmp"
	"slices"
	"strings"
)

// EntityCandidate is a note of an entity neighbourhood as a store found it,
// before BuildEntityGraph ranks and caps it: the note's ID, its entity with
// its depth, and its relationships with their targets as note IDs.
type EntityCandidate struct {
	NoteID    string
	Node      EntityGraphNode
	Relations []CandidateRelation
}

// CandidateRelation is one relationship of a candidate: its type, the note
// ID its link resolves to ("" while unresolved) and its notes.
type CandidateRelation struct {
	Type   RelationType
	Target string
	Notes  string
}

// TitleKey is the form titles are ordered by: lowercased, so the order is
// case-insensitive. Neo4j stores it with each entity, so that its ordering
// and Go's agree character for character.
func TitleKey(title string) string { return strings.ToLower(title) }

// AllowsRelation reports whether a relationship of type t passes the
// filter types (empty: every type).
func AllowsRelation(types []RelationType, t RelationType) bool {
	return len(types) == 0 || slices.Contains(types, t)
}

// BuildEntityGraph turns a store's candidates into the answer of
// get_entity_graph, the same for every store:
//   - nodes ordered by depth, then title case-insensitively, then ID, and
//     the first q.MaxNodes kept;
//   - edges: the relationships of kept nodes whose target is a kept node,
//     whose type passes q.Types and that a walk of q.Depth steps crosses
//     (at least one end nearer than q.Depth: at depth 1, two neighbours of
//     the root related to each other do not add an edge); one edge per
//     (from, to, type), the first one's notes kept; ordered by from, to,
//     then type, and the first q.MaxEdges kept.
//
// The candidates must include every entity within q.Depth relationship
// steps of the root (either direction), or at least every one that can
// rank among the first q.MaxNodes; the root has depth 0.
func BuildEntityGraph(cands []EntityCandidate, q EntityGraphQuery) *EntityGraph {
	ranked := slices.Clone(cands)
	slices.SortFunc(ranked, func(a, b EntityCandidate) int {
		return cmp.Or(
			cmp.Compare(a.Node.Depth, b.Node.Depth),
			cmp.Compare(TitleKey(a.Node.Title), TitleKey(b.Node.Title)),
			cmp.Compare(a.Node.ID, b.Node.ID),
		)
	})
	if q.MaxNodes > 0 && len(ranked) > q.MaxNodes {
		ranked = ranked[:q.MaxNodes]
	}
	g := &EntityGraph{Nodes: make([]EntityGraphNode, len(ranked)), Edges: []EntityEdge{}}
	kept := make(map[string]EntityGraphNode, len(ranked)) // by note ID
	for i, c := range ranked {
		g.Nodes[i] = c.Node
		kept[c.NoteID] = c.Node
	}
	type edgeKey struct {
		from, to string
		typ      RelationType
	}
	seen := map[edgeKey]bool{}
	for _, c := range ranked {
		for _, r := range c.Relations {
			to, ok := kept[r.Target]
			if !ok || !AllowsRelation(q.Types, r.Type) || min(c.Node.Depth, to.Depth) >= q.Depth {
				continue
			}
			k := edgeKey{c.Node.ID, to.ID, r.Type}
			if seen[k] {
				continue
			}
			seen[k] = true
			g.Edges = append(g.Edges, EntityEdge{From: c.Node.ID, To: to.ID, Type: r.Type, Notes: r.Notes})
		}
	}
	slices.SortFunc(g.Edges, func(a, b EntityEdge) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Type, b.Type))
	})
	if q.MaxEdges > 0 && len(g.Edges) > q.MaxEdges {
		g.Edges = g.Edges[:q.MaxEdges]
	}
	return g
}

// CompareEntityRecency orders search results: UpdatedAt descending, then
// ID ascending.
func CompareEntityRecency(a, b EntitySummary) int {
	return cmp.Or(b.UpdatedAt.Compare(a.UpdatedAt), cmp.Compare(a.ID, b.ID))
}

// MatchesEntityText reports whether the lowercased query text occurs in
// the entity's title, slug or summary, compared case-insensitively.
func MatchesEntityText(lowerText string, e EntitySummary) bool {
	return strings.Contains(strings.ToLower(e.Title), lowerText) ||
		strings.Contains(strings.ToLower(e.Slug), lowerText) ||
		strings.Contains(strings.ToLower(e.Summary), lowerText)
}
