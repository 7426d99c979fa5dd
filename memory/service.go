// Package memory is the long-term memory service of spec 004: typed,
// namespaced memories with a confidence that feedback moves, golden rules,
// validation history (TRY/LEARN), relations between memories, the context
// block for prompt injection, and the contradiction, supersession and
// health analyses. It works on any core.MemoryStore and embeds with a
// core.Embedder; the tools in tools/memory are a thin layer over it.
package memory

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/vaultgraph/vaultgraph/core"
)

// Memory types. Clients store the first five; a memory becomes a golden
// rule by validation only.
const (
	TypePreference = "preference"
	TypeDecision   = "decision"
	TypePattern    = "pattern"
	TypeSession    = "session"
	TypeFact       = "fact"
	TypeGoldenRule = "golden_rule"
)

// StoreTypes are the types memory_store accepts, in the spec's order.
var StoreTypes = []string{TypePreference, TypeDecision, TypePattern, TypeSession, TypeFact}

// AllTypes are the types a memory can have, for filters.
var AllTypes = append(append([]string{}, StoreTypes...), TypeGoldenRule)

// Relation types of memory_relate.
const (
	RelRelatesTo   = "relates_to"
	RelSupersedes  = "supersedes"
	RelCausedBy    = "caused_by"
	RelContradicts = "contradicts"
)

// RelationTypes lists the relation types.
var RelationTypes = []string{RelRelatesTo, RelSupersedes, RelCausedBy, RelContradicts}

// Event kinds of the validation history.
const (
	EventValidate = "validate"
	EventApply    = "apply"
	EventOutcome  = "outcome"
)

// EventKinds lists the event kinds.
var EventKinds = []string{EventValidate, EventApply, EventOutcome}

// Namespaces every project has.
const (
	NamespaceGlobal  = "global"
	NamespaceDefault = "default"
	projectPrefix    = "project:"
)

// Error is a failure the caller can act on; Msg is spec 004's message
// ("Memory not found: mem_1", "Invalid memory type: x") and is shown as is.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func fail(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// Messages of spec 004.
const (
	msgQueryEmpty  = "Query cannot be empty"
	msgNotFound    = "Memory not found: %s"
	msgInvalidType = "Invalid memory type: %s"
)

// ErrNoEmbedder is returned by the operations that need semantic
// similarity when the service has no embedder.
var ErrNoEmbedder = &Error{Msg: "Semantic search is off: set embedding.provider to builtin, ollama or openai"}

// Service runs the memory operations of one project.
type Service struct {
	project string
	store   core.MemoryStore
	emb     core.Embedder
	now     func() time.Time

	reembedMu  sync.Mutex
	reembedded bool // Reembed ran successfully in this process
}

// Option tunes New.
type Option func(*Service)

// WithClock makes the service read the time from now (tests).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// New returns the service for project over store, embedding with emb
// (nil: the operations that need similarity answer ErrNoEmbedder).
func New(project string, store core.MemoryStore, emb core.Embedder, opts ...Option) *Service {
	s := &Service{project: project, store: store, emb: emb, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s
}

func (s *Service) clock() time.Time { return s.now().UTC() }

// MaxNamespaceLength bounds a namespace, in characters.
const MaxNamespaceLength = 200

// MaxContentLength bounds a memory's content, in characters: half of
// memory_context's default budget of 4,000 tokens (a memory longer than
// the whole budget could never be in a context block), and far more than
// a preference, decision or fact needs. A long text belongs in the
// document index (index_file), whose search returns it in chunks.
const MaxContentLength = 8000

// CheckNamespace accepts global, default and project:{name}, where name is
// not blank and holds no control character (NUL included): a namespace is
// shown in answers and context blocks, and an invisible character would
// make two namespaces look the same.
func CheckNamespace(ns string) error {
	if ns == NamespaceGlobal || ns == NamespaceDefault {
		return nil
	}
	for _, r := range ns {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError {
			return fail("Invalid namespace: %q contains a control or invisible formatting character (use global, default or project:{name} with a printable name)", ns)
		}
	}
	if n := utf8.RuneCountInString(ns); n > MaxNamespaceLength {
		return fail("Invalid namespace: %d characters, the limit is %d", n, MaxNamespaceLength)
	}
	if name, ok := strings.CutPrefix(ns, projectPrefix); ok && strings.TrimSpace(name) != "" {
		return nil
	}
	return fail("Invalid namespace: %s (use global, default or project:{name})", ns)
}

// CheckType accepts the memory types; golden_rule only when filtering.
func CheckType(t string, forFilter bool) error {
	for _, v := range StoreTypes {
		if t == v {
			return nil
		}
	}
	if forFilter && t == TypeGoldenRule {
		return nil
	}
	return fail(msgInvalidType, t)
}

// ContentHash is the deduplication key of a content.
func ContentHash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return "sha256_" + hex.EncodeToString(sum[:])
}

var idPattern = regexp.MustCompile(`^mem_[0-9a-f]{16}$`)

// IsID reports whether s has the exact form of a memory ID
// (mem_ and 16 hex digits).
func IsID(s string) bool { return idPattern.MatchString(s) }

// LooksLikeID reports whether memory_forget's input_value is meant as an
// ID: anything that starts with "mem_". A mistyped ID (a digit short, a
// stray character) is then looked up, not found and nothing is deleted,
// instead of becoming a query that deletes whatever it resembles.
func LooksLikeID(s string) bool { return strings.HasPrefix(s, "mem_") }

func newID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// lastEvent is the last nanosecond newEventID used.
var lastEvent atomic.Int64

// newEventID returns an ID that sorts after every ID this process made
// before (16 hex digits of the wall clock in nanoseconds, bumped when two
// calls meet): events that share a timestamp keep their order, since the
// stores order history by time, then ID.
func newEventID() string {
	now := time.Now().UnixNano()
	for {
		last := lastEvent.Load()
		next := max(now, last+1)
		if lastEvent.CompareAndSwap(last, next) {
			return fmt.Sprintf("evt_%016x", next)
		}
	}
}

// notFound maps a store's ErrNotFound to the spec's message.
func notFound(id string, err error) error {
	if errors.Is(err, core.ErrNotFound) {
		return fail(msgNotFound, id)
	}
	return err
}

// embed returns the vector of text, or ErrNoEmbedder. It is the door to
// every similarity operation, so it first makes sure (once per process)
// that no memory is left with another model's vector.
func (s *Service) embed(ctx context.Context, text string) ([]float32, error) {
	if s.emb == nil {
		return nil, ErrNoEmbedder
	}
	if err := s.ensureVectors(ctx); err != nil {
		return nil, err
	}
	vs, err := s.emb.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// reembedBatch is how many contents Reembed embeds per call.
const reembedBatch = 64

func (s *Service) ensureVectors(ctx context.Context) error {
	s.reembedMu.Lock()
	defer s.reembedMu.Unlock()
	if s.reembedded {
		return nil
	}
	if _, err := s.Reembed(ctx); err != nil {
		return err
	}
	s.reembedded = true
	return nil
}

// Reembed embeds with the current model every memory of the project whose
// vector another model made, or that has none (stored while semantic
// search was off), and returns how many it embedded. The first similarity
// operation of a process runs it, so a change of embedding provider or
// model never hides old memories from recall.
func (s *Service) Reembed(ctx context.Context) (int, error) {
	if s.emb == nil {
		return 0, ErrNoEmbedder
	}
	all, _, err := s.store.ListMemories(ctx, s.project, core.MemoryFilter{}, core.MemoryPage{Order: core.OrderCreatedAt})
	if err != nil {
		return 0, err
	}
	model := s.emb.Model()
	var stale []core.Memory
	for _, m := range all {
		if m.Model != model || len(m.Vector) == 0 {
			stale = append(stale, m)
		}
	}
	done := 0
	for len(stale) > 0 {
		batch := stale[:min(len(stale), reembedBatch)]
		stale = stale[len(batch):]
		texts := make([]string, len(batch))
		for i, m := range batch {
			texts[i] = m.Content
		}
		vs, err := s.emb.Embed(ctx, texts)
		if err != nil {
			return done, err
		}
		for i, m := range batch {
			err := s.store.SetMemoryVector(ctx, s.project, m.ID, model, vs[i])
			if err != nil && !errors.Is(err, core.ErrNotFound) { // deleted meanwhile: nothing to do
				return done, err
			}
			done++
		}
	}
	return done, nil
}

// HasEmbedder reports whether similarity operations are available.
func (s *Service) HasEmbedder() bool { return s.emb != nil }

// StoreInput is memory_store's request.
type StoreInput struct {
	Content    string
	Type       string
	Namespace  string
	Importance float64
	Metadata   map[string]any
}

// Store saves a new memory, or returns the existing one with the same
// content in the namespace (created false).
func (s *Service) Store(ctx context.Context, in StoreInput) (core.Memory, bool, error) {
	if strings.TrimSpace(in.Content) == "" {
		return core.Memory{}, false, fail("Content cannot be empty")
	}
	if n := utf8.RuneCountInString(in.Content); n > MaxContentLength {
		return core.Memory{}, false, fail("Content is too long: %d characters, the limit is %d; store a summary as a memory and index the full text as a document with index_file", n, MaxContentLength)
	}
	if err := CheckType(in.Type, false); err != nil {
		return core.Memory{}, false, err
	}
	if err := CheckNamespace(in.Namespace); err != nil {
		return core.Memory{}, false, err
	}
	if in.Importance < 0 || in.Importance > 1 {
		return core.Memory{}, false, fail("Importance must be between 0.0 and 1.0, got %g", in.Importance)
	}
	now := s.clock()
	m := core.Memory{
		ID: newID("mem_"), Content: in.Content, ContentHash: ContentHash(in.Content), Type: in.Type,
		Namespace: in.Namespace, Importance: in.Importance, Confidence: InitialConfidence, Metadata: in.Metadata,
		CreatedAt: now, UpdatedAt: now, LastAccessed: now,
	}
	if s.emb != nil {
		v, err := s.embed(ctx, in.Content)
		if err != nil {
			return core.Memory{}, false, err
		}
		m.Vector, m.Model = v, s.emb.Model()
	}
	return s.store.PutMemory(ctx, s.project, m)
}

// Get returns one memory.
func (s *Service) Get(ctx context.Context, id string) (*core.Memory, error) {
	m, err := s.store.GetMemory(ctx, s.project, id)
	return m, notFound(id, err)
}

// Filter is the filter clients give (floats as they send them).
type Filter struct {
	Namespace     string // "": any
	Type          string // "": any
	MinImportance float64
	MinConfidence float64
}

func (f Filter) core() (core.MemoryFilter, error) {
	var cf core.MemoryFilter
	if f.Namespace != "" {
		if err := CheckNamespace(f.Namespace); err != nil {
			return cf, err
		}
		cf.Namespaces = []string{f.Namespace}
	}
	if f.Type != "" {
		if err := CheckType(f.Type, true); err != nil {
			return cf, err
		}
		cf.Type = f.Type
	}
	cf.MinImportance = f.MinImportance
	cf.MinConfidence = FromFloat(f.MinConfidence)
	return cf, nil
}

// Recall returns up to n memories by relevance to query (see rank), those
// at least as relevant as the embedder's floor only (RecallFloor,
// StaticRecallFloor), and records the access of each.
func (s *Service) Recall(ctx context.Context, query string, n int, f Filter) ([]core.ScoredMemory, error) {
	if strings.TrimSpace(query) == "" {
		return nil, fail(msgQueryEmpty)
	}
	cf, err := f.core()
	if err != nil {
		return nil, err
	}
	hits, err := s.rank(ctx, query, cf, max(n, 1))
	if err != nil {
		return nil, err
	}
	// Only what reaches the floor is recalled: "nothing relevant" is an
	// answer (the tool says so), better than the least unrelated memories.
	floor := recallFloor(s.emb)
	hits = slices.DeleteFunc(hits, func(h core.ScoredMemory) bool { return h.Score < floor })
	if len(hits) > 0 {
		ids := make([]string, len(hits))
		now := s.clock()
		for i := range hits {
			ids[i] = hits[i].ID
			hits[i].LastAccessed = now
			hits[i].AccessCount++
		}
		if err := s.store.TouchMemories(ctx, s.project, ids, now); err != nil {
			return nil, err
		}
	}
	return hits, nil
}

// Feedback is the result of a validation or an outcome.
type Feedback struct {
	Memory        core.Memory
	Event         core.MemoryEvent
	OldConfidence int
	NewConfidence int
	Promoted      bool
}

// Validate applies was_helpful feedback (memory_validate).
func (s *Service) Validate(ctx context.Context, id string, helpful bool, context string) (Feedback, error) {
	return s.feedback(ctx, id, EventValidate, helpful, context, "", "")
}

// Outcome records the LEARN step: the result of applying a memory.
// sessionID, when given, is kept with the event.
func (s *Service) Outcome(ctx context.Context, id string, success bool, outcome, applyID, sessionID string) (Feedback, error) {
	if applyID != "" {
		evs, err := s.store.MemoryEvents(ctx, s.project, id, 0)
		if err != nil {
			return Feedback{}, err
		}
		found := false
		for _, ev := range evs {
			found = found || (ev.ID == applyID && ev.Kind == EventApply)
		}
		if !found {
			if _, err := s.Get(ctx, id); err != nil {
				return Feedback{}, err
			}
			return Feedback{}, fail("Application not found: %s (memory %s has no such memory_apply event)", applyID, id)
		}
	}
	fb, err := s.feedback(ctx, id, EventOutcome, success, outcome, applyID, sessionID)
	if errors.Is(err, core.ErrConflict) {
		return Feedback{}, fail("Application already closed: %s (its outcome is recorded; call memory_apply again to record another)", applyID)
	}
	return fb, err
}

func (s *Service) feedback(ctx context.Context, id, kind string, positive bool, text, applyID, sessionID string) (Feedback, error) {
	var fb Feedback
	now := s.clock()
	m, err := s.store.UpdateMemory(ctx, s.project, id, func(m *core.Memory) (*core.MemoryEvent, error) {
		old := m.Confidence
		next := Adjust(old, positive)
		promoted := Promotes(m.Type, next)
		if promoted {
			m.Type = TypeGoldenRule
		}
		m.Confidence = next
		m.UpdatedAt = now
		m.LastAccessed = now
		p := positive
		ev := core.MemoryEvent{ID: newEventID(), MemoryID: id, Kind: kind, Positive: &p, Context: text,
			ApplyID: applyID, SessionID: sessionID, OldConfidence: old, NewConfidence: next, Promoted: promoted, At: now}
		fb = Feedback{Event: ev, OldConfidence: old, NewConfidence: next, Promoted: promoted}
		return &ev, nil
	})
	if err != nil {
		return Feedback{}, notFound(id, err)
	}
	fb.Memory = *m
	return fb, nil
}

// Apply records the TRY step: the memory is being applied in context;
// sessionID, when given, is kept with the event.
func (s *Service) Apply(ctx context.Context, id, context, sessionID string) (core.Memory, core.MemoryEvent, error) {
	var ev core.MemoryEvent
	now := s.clock()
	m, err := s.store.UpdateMemory(ctx, s.project, id, func(m *core.Memory) (*core.MemoryEvent, error) {
		m.LastAccessed = now
		m.AccessCount++
		ev = core.MemoryEvent{ID: newEventID(), MemoryID: id, Kind: EventApply, Context: context, SessionID: sessionID,
			OldConfidence: m.Confidence, NewConfidence: m.Confidence, At: now}
		return &ev, nil
	})
	if err != nil {
		return core.Memory{}, core.MemoryEvent{}, notFound(id, err)
	}
	return *m, ev, nil
}

// ForgetInput is memory_forget's request.
type ForgetInput struct {
	MemoryID   string
	Query      string
	InputValue string
	Namespace  string
	NResults   int
	Force      bool
	// DryRun answers what would be deleted and deletes nothing.
	DryRun bool
}

// ForgetMatch is a memory query mode found, with its relevance.
type ForgetMatch struct {
	Memory core.Memory
	Score  float64
}

// ForgetResult lists what memory_forget deleted (or, in a dry run, would
// delete) and what it protected.
type ForgetResult struct {
	Deleted     []string // deleted; empty in a dry run
	WouldDelete []string // what a dry run would delete; nil otherwise
	Protected   []string
	Mode        string // id or query
	// Matches are the memories query mode selected (relevance at least
	// MatchFloor), best first; nil in ID mode.
	Matches []ForgetMatch
}

// Forget deletes by ID or by query; golden rules survive unless forced.
// memory_id, and an input_value that starts with "mem_", are IDs: a
// mistyped one is "Memory not found" and deletes nothing. Query mode
// deletes at most NResults memories, and only those at least MatchFloor
// relevant to the query: a query that matches nothing deletes nothing.
func (s *Service) Forget(ctx context.Context, in ForgetInput) (ForgetResult, error) {
	if in.Namespace != "" {
		if err := CheckNamespace(in.Namespace); err != nil {
			return ForgetResult{}, err
		}
	}
	id, query := strings.TrimSpace(in.MemoryID), strings.TrimSpace(in.Query)
	if id == "" && query == "" {
		v := strings.TrimSpace(in.InputValue)
		switch {
		case v == "":
			return ForgetResult{}, fail("Provide memory_id, query or input_value")
		case LooksLikeID(v):
			id = v
		default:
			query = v
		}
	}
	var candidates []core.Memory
	res := ForgetResult{Deleted: []string{}, Protected: []string{}, Mode: "id"}
	if id != "" {
		m, err := s.Get(ctx, id)
		if err != nil {
			return ForgetResult{}, err
		}
		if in.Namespace != "" && m.Namespace != in.Namespace {
			return ForgetResult{}, fail(msgNotFound+" in namespace %s", id, in.Namespace)
		}
		candidates = []core.Memory{*m}
	} else {
		res.Mode = "query"
		var f core.MemoryFilter
		if in.Namespace != "" {
			f.Namespaces = []string{in.Namespace}
		}
		hits, err := s.rank(ctx, query, f, max(in.NResults, 1))
		if err != nil {
			return ForgetResult{}, err
		}
		res.Matches = []ForgetMatch{}
		for _, h := range hits {
			if h.Score >= MatchFloor {
				candidates = append(candidates, h.Memory)
				res.Matches = append(res.Matches, ForgetMatch{Memory: h.Memory, Score: h.Score})
			}
		}
	}
	var del []string
	for _, m := range candidates {
		if !in.Force && IsGolden(m.Type, m.Confidence) {
			res.Protected = append(res.Protected, m.ID)
			continue
		}
		del = append(del, m.ID)
	}
	if in.DryRun {
		res.WouldDelete = append([]string{}, del...)
		return res, nil
	}
	if len(del) > 0 {
		gone, err := s.store.DeleteMemories(ctx, s.project, del)
		if err != nil {
			return ForgetResult{}, err
		}
		res.Deleted = gone
	}
	return res, nil
}

// Count counts the memories f selects.
func (s *Service) Count(ctx context.Context, f Filter) (int, error) {
	cf, err := f.core()
	if err != nil {
		return 0, err
	}
	return s.store.CountMemories(ctx, s.project, cf)
}

// Orders lists memory_list's order_by values.
var Orders = []string{string(core.OrderCreatedAt), string(core.OrderUpdatedAt), string(core.OrderLastAccessed),
	string(core.OrderConfidence), string(core.OrderImportance)}

// List returns one page of the memories f selects and their total.
func (s *Service) List(ctx context.Context, f Filter, page core.MemoryPage) ([]core.Memory, int, error) {
	cf, err := f.core()
	if err != nil {
		return nil, 0, err
	}
	return s.store.ListMemories(ctx, s.project, cf, page)
}

// History returns the events of id ("" for all), newest limit, oldest
// first, checking that id exists.
func (s *Service) History(ctx context.Context, id, kind string, limit int) ([]core.MemoryEvent, *core.Memory, error) {
	var m *core.Memory
	if id != "" {
		var err error
		if m, err = s.Get(ctx, id); err != nil {
			return nil, nil, err
		}
	}
	evs, err := s.store.MemoryEvents(ctx, s.project, id, 0)
	if err != nil {
		return nil, nil, err
	}
	if kind != "" {
		kept := evs[:0:0]
		for _, ev := range evs {
			if ev.Kind == kind {
				kept = append(kept, ev)
			}
		}
		evs = kept
	}
	if limit > 0 && len(evs) > limit {
		evs = evs[len(evs)-limit:]
	}
	return evs, m, nil
}

// Relate creates or re-weighs a relation between two memories.
func (s *Service) Relate(ctx context.Context, from, to, relType string, weight float64) (bool, error) {
	if from == to {
		return false, fail("A memory cannot be related to itself: %s", from)
	}
	if weight < 0 || weight > 1 {
		return false, fail("Weight must be between 0.0 and 1.0, got %g", weight)
	}
	for _, id := range []string{from, to} {
		if _, err := s.Get(ctx, id); err != nil {
			return false, err
		}
	}
	created, err := s.store.RelateMemories(ctx, s.project, core.MemoryRelation{From: from, To: to, Type: relType, Weight: weight, CreatedAt: s.clock()})
	if errors.Is(err, core.ErrNotFound) { // deleted in between
		return false, fail(msgNotFound, from+" or "+to)
	}
	return created, err
}

// Directions of memory_edge_forget and memory_inspect_graph.
const (
	DirectionBoth     = "both"
	DirectionOutgoing = "outgoing"
	DirectionIncoming = "incoming"
)

// Directions lists them.
var Directions = []string{DirectionBoth, DirectionOutgoing, DirectionIncoming}

// Unrelate deletes relations (see core.MemoryStore.UnrelateMemories).
// The source must exist; a missing target deletes nothing. Without a
// target, direction says which relations of from go: those leaving it
// (outgoing), reaching it (incoming) or both ("" is both).
func (s *Service) Unrelate(ctx context.Context, from, to, relType, direction string) (int, error) {
	if _, err := s.Get(ctx, from); err != nil {
		return 0, err
	}
	if to != "" || direction == "" || direction == DirectionBoth {
		return s.store.UnrelateMemories(ctx, s.project, from, to, relType)
	}
	rels, err := s.store.MemoryRelations(ctx, s.project, []string{from})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range rels {
		if relType != "" && r.Type != relType {
			continue
		}
		if (direction == DirectionOutgoing && r.From == from) || (direction == DirectionIncoming && r.To == from) {
			k, err := s.store.UnrelateMemories(ctx, s.project, r.From, r.To, r.Type)
			if err != nil {
				return n, err
			}
			n += k
		}
	}
	return n, nil
}

// Related is a memory reached from a recalled one over relations.
type Related struct {
	Memory       core.Memory
	RelatedTo    string // the recalled memory it was reached from
	RelationType string // of the last relation on the way
	Depth        int    // relations from the recalled memory
}

// RelatedTo walks relations (either direction) from ids, up to maxDepth
// hops, and returns the memories reached that are not among ids, by depth,
// then ID: memory_recall's include_related.
func (s *Service) RelatedTo(ctx context.Context, ids []string, maxDepth int) ([]Related, error) {
	seen := map[string]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	origin := map[string]string{}
	for _, id := range ids {
		origin[id] = id
	}
	frontier := slices.Clone(ids)
	out := []Related{}
	for depth := 1; depth <= maxDepth && len(frontier) > 0; depth++ {
		rels, err := s.store.MemoryRelations(ctx, s.project, frontier)
		if err != nil {
			return nil, err
		}
		inFrontier := map[string]bool{}
		for _, f := range frontier {
			inFrontier[f] = true
		}
		var level []Related
		for _, r := range rels {
			for _, end := range [][2]string{{r.From, r.To}, {r.To, r.From}} {
				from, to := end[0], end[1]
				if !inFrontier[from] || seen[to] {
					continue
				}
				seen[to] = true
				origin[to] = origin[from]
				level = append(level, Related{Memory: core.Memory{ID: to}, RelatedTo: origin[from], RelationType: r.Type, Depth: depth})
			}
		}
		slices.SortFunc(level, func(a, b Related) int { return strings.Compare(a.Memory.ID, b.Memory.ID) })
		frontier = frontier[:0]
		for _, l := range level {
			m, err := s.store.GetMemory(ctx, s.project, l.Memory.ID)
			if err != nil {
				continue // deleted meanwhile
			}
			l.Memory = *m
			out = append(out, l)
			frontier = append(frontier, l.Memory.ID)
		}
	}
	return out, nil
}
