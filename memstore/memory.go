package memstore

import (
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/keyword"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// Memories, their events and relations live in three buckets of the state
// file, keyed by project and ID joined with a NUL (which neither contains
// in practice, and which sorts before every other byte, so a project's
// keys are contiguous). Every write goes to the file first, in one fsynced
// transaction, and only then to the in-memory index that answers reads: a
// write that returned nil survives a crash, one that failed changed
// nothing. The index is loaded from the file on first use.
const (
	bucketMemories        = "memories"
	bucketMemoryEvents    = "memory_events"
	bucketMemoryRelations = "memory_relations"
)

func memKey(parts ...string) string { return strings.Join(parts, "\x00") }

// memoryRecord is a Memory as stored: the vector as little-endian float32
// bytes (base64 in JSON), a quarter of its size as JSON numbers.
type memoryRecord struct {
	Project      string         `json:"project"`
	ID           string         `json:"id"`
	Content      string         `json:"content"`
	ContentHash  string         `json:"content_hash"`
	Type         string         `json:"type"`
	Namespace    string         `json:"namespace"`
	Importance   float64        `json:"importance"`
	Confidence   int            `json:"confidence"`
	Metadata     map[string]any `json:"metadata,omitempty"`
	Vector       []byte         `json:"vector,omitempty"`
	Model        string         `json:"model,omitempty"`
	CreatedAt    time.Time      `json:"created_at"`
	UpdatedAt    time.Time      `json:"updated_at"`
	LastAccessed time.Time      `json:"last_accessed"`
	AccessCount  int            `json:"access_count"`
}

type eventRecord struct {
	Project string `json:"project"`
	core.MemoryEvent
}

type relationRecord struct {
	Project string `json:"project"`
	core.MemoryRelation
}

func memoryToRecord(project string, m core.Memory) memoryRecord {
	r := memoryRecord{
		Project: project, ID: m.ID, Content: m.Content, ContentHash: m.ContentHash, Type: m.Type,
		Namespace: m.Namespace, Importance: m.Importance, Confidence: m.Confidence, Metadata: m.Metadata,
		Model: m.Model, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, LastAccessed: m.LastAccessed, AccessCount: m.AccessCount,
	}
	if len(m.Vector) > 0 {
		r.Vector = make([]byte, 4*len(m.Vector))
		for i, f := range m.Vector {
			binary.LittleEndian.PutUint32(r.Vector[4*i:], math.Float32bits(f))
		}
	}
	return r
}

func (r memoryRecord) memory() core.Memory {
	m := core.Memory{
		ID: r.ID, Content: r.Content, ContentHash: r.ContentHash, Type: r.Type, Namespace: r.Namespace,
		Importance: r.Importance, Confidence: r.Confidence, Metadata: r.Metadata, Model: r.Model,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, LastAccessed: r.LastAccessed, AccessCount: r.AccessCount,
	}
	if len(r.Vector) > 0 {
		m.Vector = make([]float32, len(r.Vector)/4)
		for i := range m.Vector {
			m.Vector[i] = math.Float32frombits(binary.LittleEndian.Uint32(r.Vector[4*i:]))
		}
	}
	return m
}

// memoryIndex is the in-memory copy of one project's memories.
type memoryIndex struct {
	byID      map[string]*core.Memory
	byHash    map[string]string // namespace NUL content hash -> id
	events    map[string][]core.MemoryEvent
	relations map[string]core.MemoryRelation // from NUL to NUL type -> relation
	keywords  *keyword.Index                 // BM25 over contents (which never change)
}

func newMemoryIndex() *memoryIndex {
	return &memoryIndex{byID: map[string]*core.Memory{}, byHash: map[string]string{},
		events: map[string][]core.MemoryEvent{}, relations: map[string]core.MemoryRelation{}, keywords: keyword.NewIndex()}
}

// memories is the store's memory state: one index per project, loaded once.
type memories struct {
	once    sync.Once
	loadErr error
	mu      sync.RWMutex
	byProj  map[string]*memoryIndex
}

func (mm *memories) project(p string) *memoryIndex {
	ix := mm.byProj[p]
	if ix == nil {
		ix = newMemoryIndex()
		mm.byProj[p] = ix
	}
	return ix
}

// loadMemories reads every memory, event and relation of the file into the
// index, once.
func (s *Store) loadMemories() error {
	s.mem.once.Do(func() {
		s.mem.byProj = map[string]*memoryIndex{}
		s.mem.loadErr = s.kv.View(func(tx *kv.Tx) error {
			err := tx.ForEach(bucketMemories, func(_ string, v []byte) error {
				var r memoryRecord
				if err := json.Unmarshal(v, &r); err != nil {
					return err
				}
				m := r.memory()
				ix := s.mem.project(r.Project)
				ix.byID[m.ID] = &m
				ix.byHash[memKey(m.Namespace, m.ContentHash)] = m.ID
				ix.keywords.Put(m.ID, m.Content)
				return nil
			})
			if err != nil {
				return err
			}
			err = tx.ForEach(bucketMemoryEvents, func(_ string, v []byte) error {
				var r eventRecord
				if err := json.Unmarshal(v, &r); err != nil {
					return err
				}
				ix := s.mem.project(r.Project)
				ix.events[r.MemoryID] = append(ix.events[r.MemoryID], r.MemoryEvent)
				return nil
			})
			if err != nil {
				return err
			}
			for _, ix := range s.mem.byProj {
				for _, evs := range ix.events {
					sortEvents(evs)
				}
			}
			return tx.ForEach(bucketMemoryRelations, func(_ string, v []byte) error {
				var r relationRecord
				if err := json.Unmarshal(v, &r); err != nil {
					return err
				}
				s.mem.project(r.Project).relations[memKey(r.From, r.To, r.Type)] = r.MemoryRelation
				return nil
			})
		})
	})
	if s.mem.loadErr != nil {
		return core.NewProviderError("read memories", s.mem.loadErr)
	}
	return nil
}

func sortEvents(evs []core.MemoryEvent) {
	slices.SortFunc(evs, func(a, b core.MemoryEvent) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.ID, b.ID))
	})
}

// beginMemories checks the store and loads the index.
func (s *Store) beginMemories(ctx context.Context, op string) error {
	if err := s.check(ctx); err != nil {
		return fmt.Errorf("memstore: %s: %w", op, err)
	}
	if err := s.loadMemories(); err != nil {
		return fmt.Errorf("memstore: %s: %w", op, err)
	}
	return nil
}

func writeFailed(op string, err error) error {
	return fmt.Errorf("memstore: %s: %w", op, core.NewProviderError("write state", err))
}

func cloneMemory(m *core.Memory) core.Memory {
	c := *m
	c.Vector = slices.Clone(m.Vector)
	if m.Metadata != nil {
		c.Metadata = make(map[string]any, len(m.Metadata))
		for k, v := range m.Metadata {
			c.Metadata[k] = v
		}
	}
	return c
}

// PutMemory stores m unless its namespace holds the same content.
func (s *Store) PutMemory(ctx context.Context, project string, m core.Memory) (core.Memory, bool, error) {
	if err := s.beginMemories(ctx, "put memory"); err != nil {
		return core.Memory{}, false, err
	}
	if m.ID == "" {
		return core.Memory{}, false, fmt.Errorf("memstore: put memory: %w", core.InvalidArgument("memory id is empty"))
	}
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	ix := s.mem.project(project)
	if id, ok := ix.byHash[memKey(m.Namespace, m.ContentHash)]; ok {
		return cloneMemory(ix.byID[id]), false, nil
	}
	if _, ok := ix.byID[m.ID]; ok {
		return core.Memory{}, false, fmt.Errorf("memstore: put memory %s: %w", m.ID, core.ErrExists)
	}
	err := s.kv.Update(func(tx *kv.Tx) error {
		return tx.Put(bucketMemories, memKey(project, m.ID), memoryToRecord(project, m))
	})
	if err != nil {
		return core.Memory{}, false, writeFailed("put memory "+m.ID, err)
	}
	stored := cloneMemory(&m)
	ix.byID[m.ID] = &stored
	ix.byHash[memKey(m.Namespace, m.ContentHash)] = m.ID
	ix.keywords.Put(m.ID, m.Content)
	return cloneMemory(&stored), true, nil
}

// GetMemory returns the memory with this ID.
func (s *Store) GetMemory(ctx context.Context, project, id string) (*core.Memory, error) {
	if err := s.beginMemories(ctx, "get memory"); err != nil {
		return nil, err
	}
	s.mem.mu.RLock()
	defer s.mem.mu.RUnlock()
	m, ok := s.mem.byProj[project].lookup(id)
	if !ok {
		return nil, fmt.Errorf("memstore: get memory %s: %w", id, core.ErrNotFound)
	}
	c := cloneMemory(m)
	return &c, nil
}

func (ix *memoryIndex) lookup(id string) (*core.Memory, bool) {
	if ix == nil {
		return nil, false
	}
	m, ok := ix.byID[id]
	return m, ok
}

func memoryMatches(m *core.Memory, f core.MemoryFilter) bool {
	if len(f.Namespaces) > 0 && !slices.Contains(f.Namespaces, m.Namespace) {
		return false
	}
	return (f.Type == "" || m.Type == f.Type) && m.Importance >= f.MinImportance && m.Confidence >= f.MinConfidence
}

func (s *Store) selected(project string, f core.MemoryFilter) []*core.Memory {
	ix := s.mem.byProj[project]
	if ix == nil {
		return nil
	}
	var out []*core.Memory
	for _, m := range ix.byID {
		if memoryMatches(m, f) {
			out = append(out, m)
		}
	}
	return out
}

// ListMemories returns one page of the selected memories.
func (s *Store) ListMemories(ctx context.Context, project string, f core.MemoryFilter, page core.MemoryPage) ([]core.Memory, int, error) {
	if err := s.beginMemories(ctx, "list memories"); err != nil {
		return nil, 0, err
	}
	s.mem.mu.RLock()
	defer s.mem.mu.RUnlock()
	sel := s.selected(project, f)
	key := orderKey(page.Order)
	slices.SortFunc(sel, func(a, b *core.Memory) int {
		c := key(a, b)
		if page.Descending {
			c = -c
		}
		return cmp.Or(c, cmp.Compare(a.ID, b.ID))
	})
	total := len(sel)
	lo := min(max(page.Offset, 0), total)
	hi := total
	if page.Limit > 0 {
		hi = min(lo+page.Limit, total)
	}
	out := make([]core.Memory, 0, hi-lo)
	for _, m := range sel[lo:hi] {
		out = append(out, cloneMemory(m))
	}
	return out, total, nil
}

func orderKey(o core.MemoryOrder) func(a, b *core.Memory) int {
	switch o {
	case core.OrderUpdatedAt:
		return func(a, b *core.Memory) int { return a.UpdatedAt.Compare(b.UpdatedAt) }
	case core.OrderLastAccessed:
		return func(a, b *core.Memory) int { return a.LastAccessed.Compare(b.LastAccessed) }
	case core.OrderConfidence:
		return func(a, b *core.Memory) int { return cmp.Compare(a.Confidence, b.Confidence) }
	case core.OrderImportance:
		return func(a, b *core.Memory) int { return cmp.Compare(a.Importance, b.Importance) }
	default:
		return func(a, b *core.Memory) int { return a.CreatedAt.Compare(b.CreatedAt) }
	}
}

// CountMemories counts the selected memories.
func (s *Store) CountMemories(ctx context.Context, project string, f core.MemoryFilter) (int, error) {
	if err := s.beginMemories(ctx, "count memories"); err != nil {
		return 0, err
	}
	s.mem.mu.RLock()
	defer s.mem.mu.RUnlock()
	return len(s.selected(project, f)), nil
}

// SearchMemories ranks the selected memories of model by cosine similarity.
// With a limit it keeps only the best limit in a heap while scanning, so a
// search costs one dot product per memory and no sort of them all.
func (s *Store) SearchMemories(ctx context.Context, project, model string, vector []float32, f core.MemoryFilter, limit int) ([]core.ScoredMemory, error) {
	if err := s.beginMemories(ctx, "search memories"); err != nil {
		return nil, err
	}
	s.mem.mu.RLock()
	defer s.mem.mu.RUnlock()
	var hits scoredHeap
	if ix := s.mem.byProj[project]; ix != nil {
		for _, m := range ix.byID {
			if m.Model != model || len(m.Vector) != len(vector) || !memoryMatches(m, f) {
				continue
			}
			h := scored{m, core.Cosine01(vector, m.Vector)}
			switch {
			case limit <= 0 || len(hits) < limit:
				heap.Push(&hits, h)
			case h.better(hits[0]):
				hits[0] = h
				heap.Fix(&hits, 0)
			}
		}
	}
	slices.SortFunc(hits, func(a, b scored) int {
		if a.better(b) {
			return -1
		}
		return 1
	})
	out := make([]core.ScoredMemory, len(hits))
	for i, h := range hits {
		out[i] = core.ScoredMemory{Memory: cloneMemory(h.m), Score: h.score}
	}
	return out, nil
}

// KeywordSearchMemories ranks the selected memories by BM25 over their
// contents (the project's keyword index, kept with every write).
func (s *Store) KeywordSearchMemories(ctx context.Context, project, text string, f core.MemoryFilter, limit int) ([]core.ScoredMemory, error) {
	if err := s.beginMemories(ctx, "keyword search memories"); err != nil {
		return nil, err
	}
	s.mem.mu.RLock()
	defer s.mem.mu.RUnlock()
	out := []core.ScoredMemory{}
	ix := s.mem.byProj[project]
	if ix == nil {
		return out, nil
	}
	n := ix.keywords.Len()
	if limit > 0 && len(f.Namespaces) == 0 && f.Type == "" && f.MinImportance <= 0 && f.MinConfidence <= 0 {
		n = limit // nothing to filter out: the index's top is the answer
	}
	for _, h := range ix.keywords.Search(text, n) {
		m, ok := ix.byID[h.ID]
		if !ok || !memoryMatches(m, f) {
			continue
		}
		out = append(out, core.ScoredMemory{Memory: cloneMemory(m), Score: h.Score})
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

type scored struct {
	m     *core.Memory
	score float64
}

// better orders by score descending, then ID ascending.
func (a scored) better(b scored) bool {
	return a.score > b.score || (a.score == b.score && a.m.ID < b.m.ID)
}

// scoredHeap is a heap whose root is the worst hit kept.
type scoredHeap []scored

func (h scoredHeap) Len() int           { return len(h) }
func (h scoredHeap) Less(i, j int) bool { return h[j].better(h[i]) }
func (h scoredHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *scoredHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *scoredHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// UpdateMemory changes one memory and records its event atomically.
func (s *Store) UpdateMemory(ctx context.Context, project, id string, change func(m *core.Memory) (*core.MemoryEvent, error)) (*core.Memory, error) {
	if err := s.beginMemories(ctx, "update memory"); err != nil {
		return nil, err
	}
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	cur, ok := s.mem.byProj[project].lookup(id)
	if !ok {
		return nil, fmt.Errorf("memstore: update memory %s: %w", id, core.ErrNotFound)
	}
	next := cloneMemory(cur)
	ev, err := change(&next)
	if err != nil {
		return nil, err
	}
	// Identity, content and vector are not the change's to make.
	next.ID, next.Content, next.ContentHash, next.Namespace = cur.ID, cur.Content, cur.ContentHash, cur.Namespace
	next.Vector, next.Model, next.CreatedAt = cur.Vector, cur.Model, cur.CreatedAt
	if ev != nil && ev.ApplyID != "" {
		for _, old := range s.mem.byProj[project].events[id] {
			if old.ApplyID == ev.ApplyID {
				return nil, fmt.Errorf("memstore: update memory %s: application %s already closed by %s: %w", id, ev.ApplyID, old.ID, core.ErrConflict)
			}
		}
	}
	err = s.kv.Update(func(tx *kv.Tx) error {
		if err := tx.Put(bucketMemories, memKey(project, id), memoryToRecord(project, next)); err != nil {
			return err
		}
		if ev == nil {
			return nil
		}
		return tx.Put(bucketMemoryEvents, memKey(project, id, ev.ID), eventRecord{Project: project, MemoryEvent: *ev})
	})
	if err != nil {
		return nil, writeFailed("update memory "+id, err)
	}
	*cur = next
	if ev != nil {
		ix := s.mem.byProj[project]
		ix.events[id] = append(ix.events[id], *ev)
		sortEvents(ix.events[id])
	}
	out := cloneMemory(cur)
	return &out, nil
}

// SetMemoryVector replaces a memory's vector and model.
func (s *Store) SetMemoryVector(ctx context.Context, project, id, model string, vector []float32) error {
	if err := s.beginMemories(ctx, "set memory vector"); err != nil {
		return err
	}
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	cur, ok := s.mem.byProj[project].lookup(id)
	if !ok {
		return fmt.Errorf("memstore: set memory vector %s: %w", id, core.ErrNotFound)
	}
	next := cloneMemory(cur)
	next.Vector, next.Model = slices.Clone(vector), model
	err := s.kv.Update(func(tx *kv.Tx) error {
		return tx.Put(bucketMemories, memKey(project, id), memoryToRecord(project, next))
	})
	if err != nil {
		return writeFailed("set memory vector "+id, err)
	}
	*cur = next
	return nil
}

// TouchMemories records an access of each existing memory of ids.
func (s *Store) TouchMemories(ctx context.Context, project string, ids []string, at time.Time) error {
	if err := s.beginMemories(ctx, "touch memories"); err != nil {
		return err
	}
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	ix := s.mem.byProj[project]
	var next []core.Memory
	for _, id := range distinctIDs(ids) {
		if cur, ok := ix.lookup(id); ok {
			m := cloneMemory(cur)
			m.LastAccessed = at
			m.AccessCount++
			next = append(next, m)
		}
	}
	if len(next) == 0 {
		return nil
	}
	err := s.kv.Update(func(tx *kv.Tx) error {
		for _, m := range next {
			if err := tx.Put(bucketMemories, memKey(project, m.ID), memoryToRecord(project, m)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return writeFailed("touch memories", err)
	}
	for _, m := range next {
		*ix.byID[m.ID] = m
	}
	return nil
}

func distinctIDs(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// DeleteMemories deletes memories with their events and relations.
func (s *Store) DeleteMemories(ctx context.Context, project string, ids []string) ([]string, error) {
	if err := s.beginMemories(ctx, "delete memories"); err != nil {
		return nil, err
	}
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	ix := s.mem.byProj[project]
	var gone []string
	for _, id := range distinctIDs(ids) {
		if _, ok := ix.lookup(id); ok {
			gone = append(gone, id)
		}
	}
	if len(gone) == 0 {
		return []string{}, nil
	}
	dead := map[string]bool{}
	for _, id := range gone {
		dead[id] = true
	}
	var rels []string
	for k, r := range ix.relations {
		if dead[r.From] || dead[r.To] {
			rels = append(rels, k)
		}
	}
	err := s.kv.Update(func(tx *kv.Tx) error {
		for _, id := range gone {
			if _, err := tx.Delete(bucketMemories, memKey(project, id)); err != nil {
				return err
			}
			for _, ev := range ix.events[id] {
				if _, err := tx.Delete(bucketMemoryEvents, memKey(project, id, ev.ID)); err != nil {
					return err
				}
			}
		}
		for _, k := range rels {
			if _, err := tx.Delete(bucketMemoryRelations, memKey(project, k)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, writeFailed("delete memories", err)
	}
	for _, id := range gone {
		m := ix.byID[id]
		delete(ix.byHash, memKey(m.Namespace, m.ContentHash))
		delete(ix.byID, id)
		delete(ix.events, id)
		ix.keywords.Delete(id)
	}
	for _, k := range rels {
		delete(ix.relations, k)
	}
	return gone, nil
}

// MemoryEvents returns the newest limit events of memoryID (or of all).
func (s *Store) MemoryEvents(ctx context.Context, project, memoryID string, limit int) ([]core.MemoryEvent, error) {
	if err := s.beginMemories(ctx, "memory events"); err != nil {
		return nil, err
	}
	s.mem.mu.RLock()
	defer s.mem.mu.RUnlock()
	ix := s.mem.byProj[project]
	var out []core.MemoryEvent
	if ix != nil {
		if memoryID != "" {
			out = slices.Clone(ix.events[memoryID])
		} else {
			for _, evs := range ix.events {
				out = append(out, evs...)
			}
			sortEvents(out)
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[len(out)-limit:]
	}
	if out == nil {
		out = []core.MemoryEvent{}
	}
	return out, nil
}

// RelateMemories creates or re-weighs a relation.
func (s *Store) RelateMemories(ctx context.Context, project string, r core.MemoryRelation) (bool, error) {
	if err := s.beginMemories(ctx, "relate memories"); err != nil {
		return false, err
	}
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	ix := s.mem.byProj[project]
	for _, id := range []string{r.From, r.To} {
		if _, ok := ix.lookup(id); !ok {
			return false, fmt.Errorf("memstore: relate memories: memory %s: %w", id, core.ErrNotFound)
		}
	}
	k := memKey(r.From, r.To, r.Type)
	old, exists := ix.relations[k]
	if exists {
		r.CreatedAt = old.CreatedAt
	}
	err := s.kv.Update(func(tx *kv.Tx) error {
		return tx.Put(bucketMemoryRelations, memKey(project, k), relationRecord{Project: project, MemoryRelation: r})
	})
	if err != nil {
		return false, writeFailed("relate memories", err)
	}
	ix.relations[k] = r
	return !exists, nil
}

// UnrelateMemories deletes relations from -> to (see core.MemoryStore).
func (s *Store) UnrelateMemories(ctx context.Context, project, from, to, relType string) (int, error) {
	if err := s.beginMemories(ctx, "unrelate memories"); err != nil {
		return 0, err
	}
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	ix := s.mem.byProj[project]
	if ix == nil {
		return 0, nil
	}
	var keys []string
	for k, r := range ix.relations {
		hit := false
		if to == "" {
			hit = r.From == from || r.To == from
		} else {
			hit = r.From == from && r.To == to
		}
		if hit && (relType == "" || r.Type == relType) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return 0, nil
	}
	err := s.kv.Update(func(tx *kv.Tx) error {
		for _, k := range keys {
			if _, err := tx.Delete(bucketMemoryRelations, memKey(project, k)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, writeFailed("unrelate memories", err)
	}
	for _, k := range keys {
		delete(ix.relations, k)
	}
	return len(keys), nil
}

// MemoryRelations returns the relations touching ids.
func (s *Store) MemoryRelations(ctx context.Context, project string, ids []string) ([]core.MemoryRelation, error) {
	if err := s.beginMemories(ctx, "memory relations"); err != nil {
		return nil, err
	}
	s.mem.mu.RLock()
	defer s.mem.mu.RUnlock()
	out := []core.MemoryRelation{}
	ix := s.mem.byProj[project]
	if ix == nil {
		return out, nil
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	for _, r := range ix.relations {
		if want[r.From] || want[r.To] {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b core.MemoryRelation) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Type, b.Type))
	})
	return out, nil
}
