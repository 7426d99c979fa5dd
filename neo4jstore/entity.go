package neo4jstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// An entity (spec 003) lives on its note's node:
//
//	entityId, entityType        null for a note that is no entity
//	entityTitleKey, entitySlugKey, entitySummaryKey
//	                            lowercased in Go, for search and title order
//	entityUpdated               UpdatedAt as fixed-width UTC text: orders like the instant
//	entityDoc                   JSON of entityDoc: what the entity reads return
//	relTypes, relLinks, relNotes  one entry per relationship: its type, the
//	                            index of its link, its notes ("" for none)
//	compLinks                   link indexes of the comparison targets
//
// Every note has the four lists (empty when it is no entity), so the entity
// statements never meet a null list. A relationship's target is the current
// target of its link, targets[1 + link], which the link upkeep of every
// write keeps right; so relationships resolve, and fall back to unresolved,
// exactly as links do.

// entityDoc is what entity reads need of a note, in one property.
type entityDoc struct {
	Entity *core.NoteEntity `json:"entity"`
	Title  string           `json:"title"`
	Path   string           `json:"path"`
}

// updatedLayout writes UpdatedAt so that text order is time order.
const updatedLayout = "2006-01-02T15:04:05.000000000Z"

// entityProps returns the entity properties of n's row.
func entityProps(n *core.Note) (map[string]any, error) {
	props := map[string]any{
		"entityId": nil, "entityType": nil, "entityTitleKey": nil, "entitySlugKey": nil,
		"entitySummaryKey": nil, "entityUpdated": nil, "entityDoc": nil,
		"relTypes": []string{}, "relLinks": []int64{}, "relNotes": []string{}, "compLinks": []int64{},
	}
	e := n.Entity
	if e == nil {
		return props, nil
	}
	doc, err := json.Marshal(entityDoc{Entity: e, Title: n.Title, Path: n.Path})
	if err != nil {
		return nil, fmt.Errorf("encode entity of %s: %w", n.ID, err)
	}
	types, links, notes := make([]string, 0, len(e.Relations)), make([]int64, 0, len(e.Relations)), make([]string, 0, len(e.Relations))
	for _, r := range e.Relations {
		if r.Link < 0 || r.Link >= len(n.Links) {
			return nil, fmt.Errorf("neo4jstore: note %s: %w", n.ID, core.InvalidArgument("relationship link %d out of range", r.Link))
		}
		types = append(types, string(r.Type))
		links = append(links, int64(r.Link))
		notes = append(notes, r.Notes)
	}
	comps := make([]int64, 0, len(e.Comparisons))
	for _, c := range e.Comparisons {
		if c < 0 || c >= len(n.Links) {
			return nil, fmt.Errorf("neo4jstore: note %s: %w", n.ID, core.InvalidArgument("comparison link %d out of range", c))
		}
		comps = append(comps, int64(c))
	}
	props["entityId"] = e.ID
	props["entityType"] = string(e.Type)
	props["entityTitleKey"] = core.TitleKey(n.Title)
	props["entitySlugKey"] = core.TitleKey(e.Slug)
	props["entitySummaryKey"] = core.TitleKey(e.Summary)
	props["entityUpdated"] = e.UpdatedAt.UTC().Format(updatedLayout)
	props["entityDoc"] = string(doc)
	props["relTypes"], props["relLinks"], props["relNotes"], props["compLinks"] = types, links, notes, comps
	return props, nil
}

// decodeEntityDoc reads an entityDoc property back into a note carrying
// just what the entity reads use.
func decodeEntityDoc(noteID, v any) (*core.Note, error) {
	var d entityDoc
	if err := json.Unmarshal([]byte(str(v)), &d); err != nil || d.Entity == nil {
		return nil, fmt.Errorf("decode entity of note %v: %w", noteID, errTorn)
	}
	return &core.Note{ID: str(noteID), Title: d.Title, Path: d.Path, Entity: d.Entity}, nil
}

func typeStrings[T ~string](ts []T) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t)
	}
	return out
}

// SearchEntities runs entity_search (see core.EntityReader).
func (s *Neo4jStore) SearchEntities(ctx context.Context, project string, q core.EntityQuery) (core.EntitySearchResult, error) {
	var res core.EntitySearchResult
	limit := q.Limit
	if limit <= 0 {
		limit = 1 << 30
	}
	err := s.read(ctx, "search entities", func(t txn) error {
		r, err := t.single(stmtEntitySearch, map[string]any{
			"project": project, "text": core.TitleKey(q.Text), "types": typeStrings(q.Types), "limit": int64(limit),
		})
		if err != nil {
			return err
		}
		res = core.EntitySearchResult{Total: int(num(r.Values[0]))}
		page, _ := r.Values[1].([]any)
		for _, row := range page {
			pair, _ := row.([]any)
			if len(pair) != 2 {
				return fmt.Errorf("neo4jstore: search entities: malformed row %v", row)
			}
			n, err := decodeEntityDoc(pair[0], pair[1])
			if err != nil {
				return err
			}
			res.Entities = append(res.Entities, n.EntitySummary())
		}
		return nil
	})
	return res, err
}

// GetEntity runs entity_get.
func (s *Neo4jStore) GetEntity(ctx context.Context, project, id string) (*core.Entity, error) {
	var e *core.Entity
	err := s.read(ctx, "get entity", func(t txn) error {
		r, err := t.single(stmtEntityGet, map[string]any{"project": project, "id": id})
		if err != nil || r == nil {
			e = nil
			return err
		}
		n, err := decodeEntityDoc(r.Values[0], r.Values[1])
		if err != nil {
			return err
		}
		var comparisons []string
		for _, c := range strs(r.Values[4]) {
			if !slices.Contains(comparisons, c) {
				comparisons = append(comparisons, c)
			}
		}
		if comparisons == nil {
			comparisons = []string{}
		}
		e = core.NewEntity(n, comparisons)
		e.Outgoing, e.Incoming = int(num(r.Values[2])), int(num(r.Values[3]))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, fmt.Errorf("neo4jstore: get entity %s: %w", id, core.ErrNotFound)
	}
	return e, nil
}

// EntityGraph runs entity_graph, one query, and shapes its rows with
// core.BuildEntityGraph.
func (s *Neo4jStore) EntityGraph(ctx context.Context, project, id string, q core.EntityGraphQuery) (*core.EntityGraph, error) {
	perLevel := q.MaxNodes
	if perLevel <= 0 {
		perLevel = 1 << 30
	}
	var cands []core.EntityCandidate
	err := s.read(ctx, "entity graph", func(t txn) error {
		records, err := t.collect(stmtEntityGraph, map[string]any{
			"project": project, "id": id, "depth": int64(q.Depth), "types": typeStrings(q.Types), "perLevel": int64(perLevel),
		})
		if err != nil {
			return err
		}
		cands = cands[:0]
		for _, r := range records {
			n, err := decodeEntityDoc(r.Values[0], r.Values[1])
			if err != nil {
				return err
			}
			c := core.EntityCandidate{NoteID: n.ID, Node: core.EntityGraphNode{EntitySummary: n.EntitySummary(), Depth: int(num(r.Values[2]))}}
			rels, _ := r.Values[3].([]any)
			for _, rel := range rels {
				parts, _ := rel.([]any)
				if len(parts) != 3 {
					return fmt.Errorf("neo4jstore: entity graph: malformed relationship %v", rel)
				}
				c.Relations = append(c.Relations, core.CandidateRelation{Type: core.RelationType(str(parts[0])), Target: str(parts[1]), Notes: str(parts[2])})
			}
			cands = append(cands, c)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return nil, fmt.Errorf("neo4jstore: entity graph of %s: %w", id, core.ErrNotFound)
	}
	return core.BuildEntityGraph(cands, q), nil
}

// SaveProject runs project_save.
func (s *Neo4jStore) SaveProject(ctx context.Context, p core.Project) error {
	if p.ID == "" {
		return fmt.Errorf("neo4jstore: save project: %w", core.InvalidArgument("project id is empty"))
	}
	return s.write(ctx, "save project", func(t txn) error {
		_, err := t.collect(stmtProjectSave, map[string]any{
			"id": p.ID, "key": p.Key, "name": p.Name, "slug": p.Slug, "description": p.Description,
			"host": p.Host, "path": p.Path, "createdAt": p.CreatedAt.UTC(), "updatedAt": p.UpdatedAt.UTC(),
		})
		return err
	})
}

// ListProjects runs project_list.
func (s *Neo4jStore) ListProjects(ctx context.Context) ([]core.Project, error) {
	var out []core.Project
	err := s.read(ctx, "list projects", func(t txn) error {
		records, err := t.collect(stmtProjectList, nil)
		if err != nil {
			return err
		}
		out = make([]core.Project, 0, len(records))
		for _, r := range records {
			p := core.Project{Key: str(r.Values[0]), ID: str(r.Values[1]), Name: str(r.Values[2]), Slug: str(r.Values[3]), Description: str(r.Values[4]),
				Host: str(r.Values[7]), Path: str(r.Values[8])}
			p.CreatedAt, _ = r.Values[5].(time.Time)
			p.UpdatedAt, _ = r.Values[6].(time.Time)
			out = append(out, p)
		}
		return nil
	})
	return out, err
}
