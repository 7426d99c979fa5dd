package neo4jstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/vaultgraph/vaultgraph/core"
)

// Memories are (:Memory) nodes carrying their project. What changes
// together (type, importance, confidence, metadata, updated time) is also
// kept whole in one JSON property, state, which reads decode: a reader
// never sees half of an update (see noteDoc for why). type, importance,
// confidence and the times exist as properties too, for filters and
// ordering. Times are nanoseconds since the epoch. History events are
// (:MemoryEvent) nodes, (:Memory)-[:HAS_EVENT]->(:MemoryEvent), with the
// whole event in doc; relations are (:Memory)-[:MEMORY_RELATION {type,
// weight}]->(:Memory).

// memoryState is the JSON of a memory's state property.
type memoryState struct {
	Type       string         `json:"type"`
	Importance float64        `json:"importance"`
	Confidence int            `json:"confidence"`
	Metadata   map[string]any `json:"metadata,omitempty"`
	UpdatedAt  time.Time      `json:"updated_at"`
}

func stateProps(m *core.Memory) (map[string]any, error) {
	state, err := json.Marshal(memoryState{Type: m.Type, Importance: m.Importance, Confidence: m.Confidence, Metadata: m.Metadata, UpdatedAt: m.UpdatedAt})
	if err != nil {
		return nil, fmt.Errorf("encode memory %s: %w", m.ID, err)
	}
	return map[string]any{
		"state": string(state), "type": m.Type, "importance": m.Importance, "confidence": int64(m.Confidence),
		"updated_ns": m.UpdatedAt.UnixNano(), "last_accessed_ns": m.LastAccessed.UnixNano(), "access_count": int64(m.AccessCount),
	}, nil
}

func memoryProps(m *core.Memory) (map[string]any, error) {
	p, err := stateProps(m)
	if err != nil {
		return nil, err
	}
	p["id"], p["content"], p["content_hash"], p["namespace"] = m.ID, m.Content, m.ContentHash, m.Namespace
	p["model"], p["created_ns"] = m.Model, m.CreatedAt.UnixNano()
	vec := make([]float64, len(m.Vector))
	for i, f := range m.Vector {
		vec[i] = float64(f)
	}
	p["embedding"] = vec
	return p, nil
}

// decodeMemory reads the columns every memory statement returns, by name.
func decodeMemory(r *neo4j.Record) (core.Memory, error) {
	get := func(k string) any { v, _ := r.Get(k); return v }
	m := core.Memory{
		ID: str(get("id")), Content: str(get("content")), ContentHash: str(get("content_hash")), Namespace: str(get("namespace")),
		Model: str(get("model")), CreatedAt: time.Unix(0, num(get("created_ns"))).UTC(),
		LastAccessed: time.Unix(0, num(get("last_accessed_ns"))).UTC(), AccessCount: int(num(get("access_count"))),
	}
	var st memoryState
	if err := json.Unmarshal([]byte(str(get("state"))), &st); err != nil {
		return core.Memory{}, fmt.Errorf("decode memory %s: %w", m.ID, err)
	}
	m.Type, m.Importance, m.Confidence, m.Metadata, m.UpdatedAt = st.Type, st.Importance, st.Confidence, st.Metadata, st.UpdatedAt
	if v := float32s(get("embedding")); len(v) > 0 {
		m.Vector = v
	}
	return m, nil
}

func decodeMemories(records []*neo4j.Record) ([]core.Memory, error) {
	out := make([]core.Memory, 0, len(records))
	for _, r := range records {
		m, err := decodeMemory(r)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func filterParams(project string, f core.MemoryFilter) map[string]any {
	ns := f.Namespaces
	if ns == nil {
		ns = []string{}
	}
	return map[string]any{"project": project, "namespaces": ns, "type": f.Type,
		"min_importance": f.MinImportance, "min_confidence": int64(f.MinConfidence)}
}

func nonce() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// PutMemory stores m unless its namespace holds the same content.
func (s *Neo4jStore) PutMemory(ctx context.Context, project string, m core.Memory) (core.Memory, bool, error) {
	if m.ID == "" {
		return core.Memory{}, false, fmt.Errorf("neo4jstore: put memory: %w", core.InvalidArgument("memory id is empty"))
	}
	props, err := memoryProps(&m)
	if err != nil {
		return core.Memory{}, false, fmt.Errorf("neo4jstore: put memory: %w", err)
	}
	props["project"] = project
	var stored core.Memory
	var created bool
	err = s.write(ctx, "put memory", func(t txn) error {
		r, err := t.single(stmtMemoryPut, map[string]any{"project": project, "namespace": m.Namespace, "content_hash": m.ContentHash, "props": props})
		if err != nil {
			return err
		}
		created, _ = r.Values[0].(bool)
		stored, err = decodeMemory(r)
		return err
	})
	if err != nil {
		return core.Memory{}, false, err
	}
	return stored, created, nil
}

// GetMemory returns the memory with this ID.
func (s *Neo4jStore) GetMemory(ctx context.Context, project, id string) (*core.Memory, error) {
	var m *core.Memory
	err := s.read(ctx, "get memory", func(t txn) error {
		r, err := t.single(stmtMemoryGet, map[string]any{"project": project, "id": id})
		if err != nil || r == nil {
			m = nil
			return err
		}
		got, err := decodeMemory(r)
		m = &got
		return err
	})
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("neo4jstore: get memory %s: %w", id, core.ErrNotFound)
	}
	return m, nil
}

// ListMemories returns one page of the selected memories and their total.
func (s *Neo4jStore) ListMemories(ctx context.Context, project string, f core.MemoryFilter, page core.MemoryPage) ([]core.Memory, int, error) {
	p := filterParams(project, f)
	p["order"] = string(page.Order)
	p["sign"] = int64(1)
	if page.Descending {
		p["sign"] = int64(-1)
	}
	p["skip"] = int64(max(page.Offset, 0))
	p["limit"] = limitParam(page.Limit)
	var out []core.Memory
	var total int
	err := s.read(ctx, "list memories", func(t txn) error {
		records, err := t.collect(stmtMemoryList, p)
		if err != nil {
			return err
		}
		if out, err = decodeMemories(records); err != nil {
			return err
		}
		r, err := t.single(stmtMemoryCount, p)
		if err != nil {
			return err
		}
		total = int(num(r.Values[0]))
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// CountMemories counts the selected memories.
func (s *Neo4jStore) CountMemories(ctx context.Context, project string, f core.MemoryFilter) (int, error) {
	var n int
	err := s.read(ctx, "count memories", func(t txn) error {
		r, err := t.single(stmtMemoryCount, filterParams(project, f))
		if err != nil {
			return err
		}
		n = int(num(r.Values[0]))
		return nil
	})
	return n, err
}

// SearchMemories ranks the selected memories of model by cosine
// similarity. The database selects the IDs; the ranking runs here, on
// vectors cached by ID (see vectorCache), and the best limit are read back
// whole. All three steps share one read transaction.
func (s *Neo4jStore) SearchMemories(ctx context.Context, project, model string, vector []float32, f core.MemoryFilter, limit int) ([]core.ScoredMemory, error) {
	if len(vector) == 0 {
		return []core.ScoredMemory{}, nil
	}
	p := filterParams(project, f)
	p["model"] = model
	var out []core.ScoredMemory
	err := s.read(ctx, "search memories", func(t txn) error {
		records, err := t.collect(stmtMemorySearchIDs, p)
		if err != nil {
			return err
		}
		ids := make([]string, len(records))
		for i, r := range records {
			ids[i] = str(r.Values[0])
		}
		vecs, err := s.vectors.get(t, project, model, ids)
		if err != nil {
			return err
		}
		type hit struct {
			id    string
			score float64
		}
		hits := make([]hit, 0, len(ids))
		for _, id := range ids {
			if v := vecs[id]; len(v) == len(vector) {
				hits = append(hits, hit{id, core.Cosine01(vector, v)})
			}
		}
		slices.SortFunc(hits, func(a, b hit) int {
			if a.score != b.score {
				if a.score > b.score {
					return -1
				}
				return 1
			}
			return compare(a.id, b.id)
		})
		if limit > 0 && len(hits) > limit {
			hits = hits[:limit]
		}
		top := make([]string, len(hits))
		for i, h := range hits {
			top[i] = h.id
		}
		records, err = t.collect(stmtMemoryGetMany, map[string]any{"project": project, "ids": top})
		if err != nil {
			return err
		}
		byID := make(map[string]core.Memory, len(records))
		for _, r := range records {
			m, err := decodeMemory(r)
			if err != nil {
				return err
			}
			byID[m.ID] = m
		}
		out = make([]core.ScoredMemory, 0, len(hits))
		for _, h := range hits {
			if m, ok := byID[h.id]; ok { // deleted in between: left out
				out = append(out, core.ScoredMemory{Memory: m, Score: h.score})
			}
		}
		return nil
	})
	return out, err
}

// vectorCache keeps memory embeddings by project, model and ID. The
// vector a model made of a memory never changes (a new content is a new
// memory with a new random ID: the memory service never reuses an ID; a
// re-embedding writes another model's vector), so an entry never goes
// stale, even with other processes writing to the database. Entries of
// deleted memories are dropped by this process's deletes and otherwise
// only cost memory (about 1 KiB per 256-dimension vector).
type vectorCache struct {
	mu sync.RWMutex
	m  map[string]cachedVector // project NUL id
}

type cachedVector struct {
	model  string
	vector []float32
}

// vectorBatch bounds how many embeddings one statement fetches.
const vectorBatch = 2000

// get returns the vectors model made of ids, reading the missing ones in t.
func (c *vectorCache) get(t txn, project, model string, ids []string) (map[string][]float32, error) {
	out := make(map[string][]float32, len(ids))
	var missing []string
	c.mu.RLock()
	for _, id := range ids {
		if e, ok := c.m[project+"\x00"+id]; ok && e.model == model {
			out[id] = e.vector
		} else {
			missing = append(missing, id)
		}
	}
	c.mu.RUnlock()
	for len(missing) > 0 {
		batch := missing[:min(len(missing), vectorBatch)]
		missing = missing[len(batch):]
		records, err := t.collect(stmtMemoryVectors, map[string]any{"project": project, "model": model, "ids": batch})
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		if c.m == nil {
			c.m = map[string]cachedVector{}
		}
		for _, r := range records {
			v := float32s(r.Values[1])
			id := str(r.Values[0])
			c.m[project+"\x00"+id] = cachedVector{model: model, vector: v}
			out[id] = v
		}
		c.mu.Unlock()
	}
	return out, nil
}

// forget drops the vectors of the memories ids.
func (c *vectorCache) forget(project string, ids []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		delete(c.m, project+"\x00"+id)
	}
}

// UpdateMemory locks, changes and writes one memory with its event.
func (s *Neo4jStore) UpdateMemory(ctx context.Context, project, id string, change func(m *core.Memory) (*core.MemoryEvent, error)) (*core.Memory, error) {
	var out *core.Memory
	var changeErr error
	err := s.write(ctx, "update memory", func(t txn) error {
		out, changeErr = nil, nil
		r, err := t.single(stmtMemoryLock, map[string]any{"project": project, "id": id})
		if err != nil || r == nil {
			return err
		}
		m, err := decodeMemory(r)
		if err != nil {
			return err
		}
		cur := m
		ev, err := change(&m)
		if err != nil {
			changeErr = err
			return err
		}
		m.ID, m.Content, m.ContentHash, m.Namespace, m.Vector, m.Model, m.CreatedAt =
			cur.ID, cur.Content, cur.ContentHash, cur.Namespace, cur.Vector, cur.Model, cur.CreatedAt
		props, err := stateProps(&m)
		if err != nil {
			return err
		}
		if _, err := t.collect(stmtMemoryUpdate, map[string]any{"project": project, "id": id, "props": props}); err != nil {
			return err
		}
		if ev != nil {
			doc, err := json.Marshal(ev)
			if err != nil {
				return err
			}
			if ev.ApplyID != "" {
				// The memory's lock is held: no other outcome can close
				// the application between this read and the write.
				applyID, _ := json.Marshal(ev.ApplyID)
				r, err := t.single(stmtMemoryEventCloses, map[string]any{"project": project, "memory_id": id,
					"needle": `"ApplyID":` + string(applyID)})
				if err != nil {
					return err
				}
				if r != nil {
					changeErr = fmt.Errorf("neo4jstore: update memory %s: application %s already closed by %s: %w", id, ev.ApplyID, str(r.Values[0]), core.ErrConflict)
					return changeErr
				}
			}
			_, err = t.collect(stmtMemoryEventCreate, map[string]any{"project": project, "memory_id": id, "id": ev.ID,
				"at_ns": ev.At.UnixNano(), "doc": string(doc)})
			if err != nil {
				return err
			}
		}
		out = &m
		return nil
	})
	if changeErr != nil {
		return nil, changeErr
	}
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, fmt.Errorf("neo4jstore: update memory %s: %w", id, core.ErrNotFound)
	}
	return out, nil
}

// SetMemoryVector replaces a memory's vector and model.
func (s *Neo4jStore) SetMemoryVector(ctx context.Context, project, id, model string, vector []float32) error {
	vec := make([]float64, len(vector))
	for i, f := range vector {
		vec[i] = float64(f)
	}
	var found bool
	err := s.write(ctx, "set memory vector", func(t txn) error {
		r, err := t.single(stmtMemorySetVector, map[string]any{"project": project, "id": id, "model": model, "embedding": vec})
		found = r != nil
		return err
	})
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("neo4jstore: set memory vector %s: %w", id, core.ErrNotFound)
	}
	s.vectors.forget(project, []string{id})
	return nil
}

// TouchMemories records an access of each existing memory of ids.
func (s *Neo4jStore) TouchMemories(ctx context.Context, project string, ids []string, at time.Time) error {
	ids = distinct(ids)
	if len(ids) == 0 {
		return nil
	}
	return s.write(ctx, "touch memories", func(t txn) error {
		_, err := t.collect(stmtMemoryTouch, map[string]any{"project": project, "ids": ids, "at_ns": at.UnixNano()})
		return err
	})
}

// DeleteMemories deletes memories with their events and relations.
func (s *Neo4jStore) DeleteMemories(ctx context.Context, project string, ids []string) ([]string, error) {
	ids = distinct(ids)
	gone := []string{}
	if len(ids) == 0 {
		return gone, nil
	}
	err := s.write(ctx, "delete memories", func(t txn) error {
		records, err := t.collect(stmtMemoryDelete, map[string]any{"project": project, "ids": ids})
		if err != nil {
			return err
		}
		deleted := map[string]bool{}
		for _, r := range records {
			deleted[str(r.Values[0])] = true
		}
		gone = gone[:0]
		for _, id := range ids {
			if deleted[id] {
				gone = append(gone, id)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.vectors.forget(project, gone)
	return gone, nil
}

// MemoryEvents returns the newest limit events, oldest first.
func (s *Neo4jStore) MemoryEvents(ctx context.Context, project, memoryID string, limit int) ([]core.MemoryEvent, error) {
	var out []core.MemoryEvent
	err := s.read(ctx, "memory events", func(t txn) error {
		records, err := t.collect(stmtMemoryEvents, map[string]any{"project": project, "memory_id": memoryID, "limit": limitParam(limit)})
		if err != nil {
			return err
		}
		out = make([]core.MemoryEvent, len(records))
		for i, r := range records {
			if err := json.Unmarshal([]byte(str(r.Values[0])), &out[len(records)-1-i]); err != nil {
				return fmt.Errorf("decode memory event: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].At = out[i].At.UTC()
	}
	return out, nil
}

// RelateMemories creates or re-weighs a relation.
func (s *Neo4jStore) RelateMemories(ctx context.Context, project string, r core.MemoryRelation) (bool, error) {
	var created, found bool
	err := s.write(ctx, "relate memories", func(t txn) error {
		rec, err := t.single(stmtMemoryRelate, map[string]any{"project": project, "from": r.From, "to": r.To, "type": r.Type,
			"weight": r.Weight, "created_ns": r.CreatedAt.UnixNano(), "nonce": nonce()})
		if err != nil {
			return err
		}
		found = rec != nil
		if found {
			created, _ = rec.Values[0].(bool)
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	if !found {
		return false, fmt.Errorf("neo4jstore: relate memories %s -> %s: %w", r.From, r.To, core.ErrNotFound)
	}
	return created, nil
}

// UnrelateMemories deletes relations (see core.MemoryStore).
func (s *Neo4jStore) UnrelateMemories(ctx context.Context, project, from, to, relType string) (int, error) {
	st := stmtMemoryUnrelatePair
	if to == "" {
		st = stmtMemoryUnrelateAll
	}
	var n int
	err := s.write(ctx, "unrelate memories", func(t txn) error {
		r, err := t.single(st, map[string]any{"project": project, "from": from, "to": to, "type": relType})
		if err != nil {
			return err
		}
		n = int(num(r.Values[0]))
		return nil
	})
	return n, err
}

// MemoryRelations returns the relations touching ids.
func (s *Neo4jStore) MemoryRelations(ctx context.Context, project string, ids []string) ([]core.MemoryRelation, error) {
	out := []core.MemoryRelation{}
	ids = distinct(ids)
	if len(ids) == 0 {
		return out, nil
	}
	err := s.read(ctx, "memory relations", func(t txn) error {
		records, err := t.collect(stmtMemoryRelations, map[string]any{"project": project, "ids": ids})
		if err != nil {
			return err
		}
		out = out[:0]
		for _, r := range records {
			w, _ := r.Values[3].(float64)
			out = append(out, core.MemoryRelation{From: str(r.Values[0]), To: str(r.Values[1]), Type: str(r.Values[2]),
				Weight: w, CreatedAt: time.Unix(0, num(r.Values[4])).UTC()})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Cypher orders strings by code point, as Go does; sort anyway so both
	// stores agree even on collation corner cases.
	slices.SortFunc(out, func(a, b core.MemoryRelation) int {
		if a.From != b.From {
			return compare(a.From, b.From)
		}
		if a.To != b.To {
			return compare(a.To, b.To)
		}
		return compare(a.Type, b.Type)
	})
	return out, nil
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
