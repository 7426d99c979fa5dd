package memstore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
)

// indexEntity adds nd to the entity index when its note carries an entity.
func (g *graph) indexEntity(nd *node) {
	e := nd.Entity
	if e == nil {
		return
	}
	l := g.entities[e.ID]
	i := l.index(nd.ID)
	g.entities[e.ID] = slices.Insert(l, i, nd)
}

// unindexEntity removes nd from the index under old's ID.
func (g *graph) unindexEntity(nd *node, old *core.NoteEntity) {
	if old == nil {
		return
	}
	l := slices.DeleteFunc(g.entities[old.ID], func(x *node) bool { return x == nd })
	if len(l) == 0 {
		delete(g.entities, old.ID)
		return
	}
	g.entities[old.ID] = l
}

// entity returns the node that is the entity with this ID, nil if none.
func (g *graph) entity(id string) *node {
	if l := g.entities[id]; len(l) > 0 {
		return l[0]
	}
	return nil
}

// isEntity reports whether nd is an entity: it carries one and no note with
// a smaller ID carries the same entity ID.
func (g *graph) isEntity(nd *node) bool {
	return nd != nil && nd.Entity != nil && g.entity(nd.Entity.ID) == nd
}

// relationTarget returns the entity node relationship r of nd points at,
// nil when its link is unresolved or its target is not an entity.
func (g *graph) relationTarget(nd *node, r core.RelationLink) *node {
	t := nd.relationTarget(r.Link)
	if !g.isEntity(t) {
		return nil
	}
	return t
}

// SearchEntities returns the entities matching q, most recently updated
// first (see core.EntityReader).
func (s *Store) SearchEntities(ctx context.Context, project string, q core.EntityQuery) (core.EntitySearchResult, error) {
	g, unlock, err := s.reader(ctx, "search entities", project)
	defer unlock()
	if err != nil || g == nil {
		return core.EntitySearchResult{}, err
	}
	text := strings.ToLower(q.Text)
	var found []core.EntitySummary
	for _, l := range g.entities {
		nd := l[0]
		if len(q.Types) > 0 && !slices.Contains(q.Types, nd.Entity.Type) {
			continue
		}
		if sum := nd.entitySummary(); core.MatchesEntityText(text, sum) {
			found = append(found, sum)
		}
	}
	slices.SortFunc(found, core.CompareEntityRecency)
	res := core.EntitySearchResult{Total: len(found), Entities: found}
	if q.Limit > 0 && len(found) > q.Limit {
		res.Entities = found[:q.Limit]
	}
	return res, nil
}

// GetEntity returns the entity with this ID and its relationship counts.
func (s *Store) GetEntity(ctx context.Context, project, id string) (*core.Entity, error) {
	g, unlock, err := s.reader(ctx, "get entity", project)
	defer unlock()
	if err != nil {
		return nil, err
	}
	var nd *node
	if g != nil {
		nd = g.entity(id)
	}
	if nd == nil {
		return nil, fmt.Errorf("memstore: get entity %s: %w", id, core.ErrNotFound)
	}
	comparisons := []string{}
	for _, link := range nd.Entity.Comparisons {
		t := g.relationTarget(nd, core.RelationLink{Link: link})
		if t != nil && !slices.Contains(comparisons, t.Entity.ID) {
			comparisons = append(comparisons, t.Entity.ID)
		}
	}
	e := core.NewEntity(&core.Note{Title: nd.Title, Path: nd.Path, Entity: nd.Entity}, comparisons)
	type pair struct {
		typ   core.RelationType
		other string
	}
	out := map[pair]bool{}
	for _, r := range nd.Entity.Relations {
		if t := g.relationTarget(nd, r); t != nil {
			out[pair{r.Type, t.Entity.ID}] = true
		}
	}
	in := map[pair]bool{}
	for _, src := range nd.in {
		if !g.isEntity(src) {
			continue
		}
		for _, r := range src.Entity.Relations {
			if src.relationTargetID(r.Link) == nd.ID {
				in[pair{r.Type, src.Entity.ID}] = true
			}
		}
	}
	e.Outgoing, e.Incoming = len(out), len(in)
	return e, nil
}

// EntityGraph returns the entity's neighbourhood: every entity within
// q.Depth relationship steps, shaped by core.BuildEntityGraph.
func (s *Store) EntityGraph(ctx context.Context, project, id string, q core.EntityGraphQuery) (*core.EntityGraph, error) {
	g, unlock, err := s.reader(ctx, "entity graph", project)
	defer unlock()
	if err != nil {
		return nil, err
	}
	var root *node
	if g != nil {
		root = g.entity(id)
	}
	if root == nil {
		return nil, fmt.Errorf("memstore: entity graph of %s: %w", id, core.ErrNotFound)
	}
	depth := map[*node]int{root: 0}
	order := []*node{root}
	frontier := []*node{root}
	for d := 1; d <= q.Depth && len(frontier) > 0; d++ {
		var next []*node
		for _, a := range frontier {
			for _, b := range g.related(a, q.Types) {
				if _, seen := depth[b]; !seen {
					depth[b] = d
					order = append(order, b)
					next = append(next, b)
				}
			}
		}
		frontier = next
	}
	cands := make([]core.EntityCandidate, len(order))
	for i, nd := range order {
		c := core.EntityCandidate{
			NoteID: nd.ID,
			Node:   core.EntityGraphNode{EntitySummary: nd.entitySummary(), Depth: depth[nd]},
		}
		for _, r := range nd.Entity.Relations {
			c.Relations = append(c.Relations, core.CandidateRelation{Type: r.Type, Target: nd.relationTargetID(r.Link), Notes: r.Notes})
		}
		cands[i] = c
	}
	return core.BuildEntityGraph(cands, q), nil
}

// related returns the entities a relationship of an allowed type joins
// to a, in either direction, a itself left out.
func (g *graph) related(a *node, types []core.RelationType) []*node {
	var out []*node
	add := func(b *node) {
		if b != a && !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	for _, r := range a.Entity.Relations {
		if !core.AllowsRelation(types, r.Type) {
			continue
		}
		if t := g.relationTarget(a, r); t != nil {
			add(t)
		}
	}
	for _, src := range a.in {
		if !g.isEntity(src) {
			continue
		}
		for _, r := range src.Entity.Relations {
			if core.AllowsRelation(types, r.Type) && src.relationTargetID(r.Link) == a.ID {
				add(src)
				break
			}
		}
	}
	return out
}

// relationTarget returns the node nd's link number link resolves to, nil
// when unresolved or out of range (core.Note.RelationTarget).
func (nd *node) relationTarget(link int) *node {
	if link < 0 || link >= len(nd.links) {
		return nil
	}
	return nd.links[link].target
}

// relationTargetID is relationTarget's ID, "" for none.
func (nd *node) relationTargetID(link int) string {
	if t := nd.relationTarget(link); t != nil {
		return t.ID
	}
	return ""
}

// entitySummary is core.Note.EntitySummary of nd's note; nd must carry an
// entity.
func (nd *node) entitySummary() core.EntitySummary {
	e := nd.Entity
	return core.EntitySummary{
		ID: e.ID, Type: e.Type, Title: nd.Title, Slug: e.Slug, Summary: e.Summary,
		Status: e.Status, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt,
	}
}
