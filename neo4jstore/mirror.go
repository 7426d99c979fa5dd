package neo4jstore

import (
	"context"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/flat"
)

// Exact note vector search from a mirror held in the process.
//
// Neo4j's vector index is approximate and, measured on 2 cores at 100k
// notes, ~22 ms a query: more than #7's whole budget for a search. A scan
// of the same vectors in Go (embedding/flat, the index the embedded store
// searches) takes ~4 ms, answers exactly, and scores exactly as the
// embedded store does. So the store mirrors the note vectors of each
// project and model it is asked about, and keeps the mirror current even
// while other processes write:
//
//   - Every SetNoteVectors transaction first bumps the project's vector
//     revision (VectorMeta.rev, search_bump_vector_rev) and stamps it on
//     each note it touches (n.vectorRev). The counter's lock is held to the
//     commit, so revisions are in commit order, and a mirror that has seen
//     revision R holds every vector set up to R.
//   - A query scans the mirror, then checks in one statement
//     (search_mirror_check) that the revision has not moved and which of
//     its candidates still have a vector of the model. When the revision
//     moved, the mirror first reads the notes stamped after its own (one
//     index seek, search_mirror_delta) and scans again. Candidates deleted
//     meanwhile (notes carry no tombstones) are dropped from the mirror then.
//   - A mirror is loaded in pages in the background, started by the first
//     StaleVectors (every sync's start) or VectorSearch of its project and
//     model; until it is loaded, after a failure, and for projects with more
//     vectors than Config.VectorCache, queries use the vector index.
//   - This process's own SetNoteVectors apply their vectors to the mirror
//     after the commit, so a process that syncs and serves (the desktop
//     case) never reads its own writes back.
//
// The cost is memory: 4 bytes per dimension per note (1 KiB at the
// built-in model's 256), bounded by Config.VectorCache.

const (
	// mirrorPage is how many vectors one statement of a load reads.
	mirrorPage = 2000
	// mirrorSlack is how many candidates a scan fetches beyond the limit,
	// so that a few deleted notes do not cost a second scan.
	mirrorSlack = 8
	// mirrorAttempts bounds the scan-check rounds of one query, which only
	// repeat while other processes keep changing vectors.
	mirrorAttempts = 3
	// mirrorRetry is how long a mirror whose load failed waits before
	// another query tries again.
	mirrorRetry = 30 * time.Second
)

// defaultMirrorMaxDelta bounds one catch-up; a larger change (a
// re-embedding) reloads the mirror in the background instead of holding up
// a query. A Store's mirrorMaxDelta, when set, replaces it (a test makes a
// small change large that way).
const defaultMirrorMaxDelta = 5000

// mirrorDeltaCap is the largest change one catch-up applies.
func (s *Neo4jStore) mirrorDeltaCap() int {
	if n := s.mirrorMaxDelta.Load(); n > 0 {
		return int(n)
	}
	return defaultMirrorMaxDelta
}

type mirrorState int

const (
	mirrorEmpty   mirrorState = iota // not loaded; the next query starts a load
	mirrorLoading                    // a load is running
	mirrorReady                      // loaded; queries use it
	mirrorOff                        // too many vectors for Config.VectorCache
)

type mirrorKey struct{ project, model string }

// mirrors holds the store's note vector mirrors.
type mirrors struct {
	mu  sync.Mutex
	all map[mirrorKey]*mirror
}

// mirror is one project's vectors of one model.
type mirror struct {
	model string // the model whose vectors it holds

	mu       sync.RWMutex
	state    mirrorState
	failedAt time.Time
	index    *flat.Index // nil: no vector yet
	epoch    string      // the VectorMeta the revision belongs to
	rev      int64       // every vector set up to rev is in index

	catchUp sync.Mutex // one catch-up at a time
}

func (ms *mirrors) get(project, model string) *mirror {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	k := mirrorKey{project, model}
	m := ms.all[k]
	if m == nil {
		if ms.all == nil {
			ms.all = map[mirrorKey]*mirror{}
		}
		m = &mirror{model: model}
		ms.all[k] = m
	}
	return m
}

// ofProject returns the mirrors of project's vectors, of every model.
func (ms *mirrors) ofProject(project string) []*mirror {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	var out []*mirror
	for k, m := range ms.all {
		if k.project == project {
			out = append(out, m)
		}
	}
	return out
}

// mirrorEnabled reports whether the store mirrors vectors at all.
func (s *Neo4jStore) mirrorEnabled() bool { return s.cfg.VectorCache > 0 }

// startMirror starts loading the mirror of project's vectors of model in
// the background, unless it is loaded, loading, off, or failed recently.
func (s *Neo4jStore) startMirror(project, model string) *mirror {
	m := s.mirrors.get(project, model)
	// Every search passes here: a loaded mirror must not take the write
	// lock, which would queue the next readers behind a running scan.
	m.mu.RLock()
	loaded := m.state != mirrorEmpty
	m.mu.RUnlock()
	if loaded {
		return m
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state != mirrorEmpty || time.Since(m.failedAt) < mirrorRetry {
		return m
	}
	m.state = mirrorLoading
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		s.loadMirror(s.life, project, model, m)
	}()
	return m
}

// loadMirror reads every vector of model in project into a new index and
// installs it, with the revision read before the first page: vectors set
// during the load are read again by the next catch-up.
func (s *Neo4jStore) loadMirror(ctx context.Context, project, model string, m *mirror) {
	start := time.Now()
	fail := func(err error) {
		m.mu.Lock()
		m.state, m.failedAt = mirrorEmpty, time.Now()
		m.mu.Unlock()
		if ctx.Err() == nil {
			s.log.Warn("neo4j vector mirror: load failed; searching through the vector index", "project", project, "err", err)
		}
	}
	epoch, rev, err := s.vectorRev(ctx, project)
	if err != nil {
		fail(err)
		return
	}
	var index *flat.Index
	after := ""
	for {
		var ids []string
		var vecs [][]float32
		err := s.read(ctx, "load vector mirror", func(t txn) error {
			records, err := t.collect(stmtSearchMirrorPage, map[string]any{
				"project": project, "model": model, "after": after, "limit": int64(mirrorPage),
			})
			if err != nil {
				return err
			}
			ids, vecs = ids[:0], vecs[:0]
			for _, r := range records {
				ids = append(ids, str(r.Values[0]))
				vecs = append(vecs, float32s(r.Values[1]))
			}
			return nil
		})
		if err != nil {
			fail(err)
			return
		}
		for i, id := range ids {
			index = addToIndex(index, id, vecs[i])
		}
		if index != nil && index.Len() > s.cfg.VectorCache {
			m.mu.Lock()
			m.state = mirrorOff
			m.mu.Unlock()
			s.log.Info("neo4j vector mirror: more vectors than neo4j.vector_cache; searching through the vector index",
				"project", project, "limit", s.cfg.VectorCache)
			return
		}
		if len(ids) < mirrorPage {
			break
		}
		after = ids[len(ids)-1]
	}
	n := 0
	if index != nil {
		n = index.Len() // before the index is shared
	}
	m.mu.Lock()
	m.index, m.epoch, m.rev, m.state = index, epoch, rev, mirrorReady
	m.mu.Unlock()
	s.log.Info("neo4j vector mirror loaded", "project", project, "model", model, "vectors", n, "ms", time.Since(start).Milliseconds())
}

// addToIndex adds id's vector to index (created at the first vector's
// dimension); vectors of another dimension, or with nothing to search by,
// are left out.
func addToIndex(index *flat.Index, id string, vec []float32) *flat.Index {
	unit := flat.Normalize(vec)
	if unit == nil {
		return index
	}
	if index == nil {
		index = flat.New(len(unit))
	}
	if len(unit) == index.Dim() {
		index.Set(id, unit)
	}
	return index
}

// vectorRev reads the project's vector revision.
func (s *Neo4jStore) vectorRev(ctx context.Context, project string) (epoch string, rev int64, err error) {
	err = s.read(ctx, "vector revision", func(t txn) error {
		r, err := t.single(stmtSearchVectorRev, map[string]any{"project": project})
		if err != nil || r == nil {
			return err
		}
		epoch, rev = str(r.Values[0]), num(r.Values[1])
		return nil
	})
	return epoch, rev, err
}

// mirrorSearch answers VectorSearch from the mirror; ok is false when the
// mirror cannot answer (not loaded, off, Neo4j failing) and the caller
// should ask the database.
func (s *Neo4jStore) mirrorSearch(ctx context.Context, project, model string, q []float32, limit int) (hits []core.ScoredID, ok bool) {
	m := s.startMirror(project, model)
	for range mirrorAttempts {
		m.mu.RLock()
		if m.state != mirrorReady {
			m.mu.RUnlock()
			return nil, false
		}
		var cands []core.ScoredID
		if m.index != nil {
			cands = m.index.TopK(q, limit+mirrorSlack)
		}
		epoch, rev := m.epoch, m.rev
		m.mu.RUnlock()

		ids := make([]string, len(cands))
		for i, c := range cands {
			ids[i] = c.ID
		}
		var nowEpoch string
		var nowRev int64
		live := map[string]bool{}
		err := s.read(ctx, "vector search (mirror)", func(t txn) error {
			r, err := t.single(stmtSearchMirrorCheck, map[string]any{"project": project, "model": model, "ids": ids})
			if err != nil || r == nil {
				return err
			}
			nowEpoch, nowRev = str(r.Values[0]), num(r.Values[1])
			clear(live)
			for _, id := range strs(r.Values[2]) {
				live[id] = true
			}
			return nil
		})
		if err != nil {
			return nil, false
		}
		if nowEpoch != epoch || nowRev != rev {
			if !s.catchUpMirror(ctx, project, model, m, epoch, rev) {
				return nil, false
			}
			continue
		}
		hits = cands[:0]
		var dead []string
		for _, c := range cands {
			if live[c.ID] {
				hits = append(hits, c)
			} else {
				dead = append(dead, c.ID)
			}
		}
		if len(dead) > 0 {
			m.mu.Lock()
			// Only at the revision checked: a catch-up since may have
			// brought a note of the same ID back with a new vector.
			if m.index != nil && m.epoch == epoch && m.rev == rev {
				for _, id := range dead {
					m.index.Remove(id)
				}
			}
			m.mu.Unlock()
		}
		// Enough live hits, or the scan found every vector there is.
		if len(hits) >= limit || len(cands) < limit+mirrorSlack {
			return cut(hits, limit), true
		}
	}
	return nil, false
}

// catchUpMirror brings m from the revision the caller saw (epoch, rev) to
// the database's: the notes stamped after it are applied, or, when they
// are many or the counter was created again, the mirror is reloaded in the
// background (and false returned). Concurrent callers catch up once.
func (s *Neo4jStore) catchUpMirror(ctx context.Context, project, model string, m *mirror, epoch string, rev int64) bool {
	m.catchUp.Lock()
	defer m.catchUp.Unlock()
	m.mu.RLock()
	moved := m.state != mirrorReady || m.epoch != epoch || m.rev != rev
	m.mu.RUnlock()
	if moved {
		return true // another caller caught up (or reset) meanwhile
	}
	type change struct {
		id, model string
		vec       []float32 // nil: no vector
	}
	var changes []change
	var nowEpoch string
	var nowRev int64
	err := s.read(ctx, "vector mirror catch-up", func(t txn) error {
		changes = changes[:0]
		r, err := t.single(stmtSearchVectorRev, map[string]any{"project": project})
		if err != nil || r == nil {
			return err
		}
		nowEpoch, nowRev = str(r.Values[0]), num(r.Values[1])
		if !sameLife(epoch, rev, nowEpoch) || nowRev <= rev {
			return nil
		}
		records, err := t.collect(stmtSearchMirrorDelta, map[string]any{
			"project": project, "since": rev, "limit": int64(s.mirrorDeltaCap() + 1),
		})
		if err != nil {
			return err
		}
		for _, r := range records {
			c := change{id: str(r.Values[0]), model: str(r.Values[1])}
			if r.Values[2] != nil {
				c.vec = float32s(r.Values[2])
			}
			changes = append(changes, c)
		}
		return nil
	})
	if err != nil {
		return false
	}
	if !sameLife(epoch, rev, nowEpoch) || nowRev < rev || len(changes) > s.mirrorDeltaCap() {
		// Another life of the counter (a wiped database) or a change too
		// large to apply while a query waits: load again.
		m.mu.Lock()
		m.state, m.index = mirrorEmpty, nil
		m.mu.Unlock()
		s.startMirror(project, model)
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range changes {
		m.setLocked(c.id, c.model, c.vec)
	}
	m.advanceLocked(nowEpoch, nowRev, s.cfg.VectorCache)
	return true
}

// setLocked records id's vector of model (nil: none) in m, which holds
// only its own model's: any earlier vector of id goes first, so one of
// another dimension (which the index would not take) cannot linger.
func (m *mirror) setLocked(id, model string, vec []float32) {
	if m.index != nil {
		m.index.Remove(id)
	}
	if model == m.model {
		m.index = addToIndex(m.index, id, vec)
	}
}

// advanceLocked moves m to revision (epoch, rev) after its changes were
// applied, and turns it off when it has grown past limit vectors.
func (m *mirror) advanceLocked(epoch string, rev int64, limit int) {
	m.epoch, m.rev = epoch, rev
	if m.index != nil && m.index.Len() > limit {
		m.state, m.index = mirrorOff, nil
	}
}

// sameLife reports whether a mirror at (epoch, rev) can catch up with a
// counter of epoch now by reading the notes stamped after rev: the same
// counter, or none at all when the mirror was loaded (every vector since
// is stamped above 0).
func sameLife(epoch string, rev int64, now string) bool {
	return epoch == now || (epoch == "" && rev == 0)
}

// applyOwnVectors puts the vectors this process just committed at
// revision (epoch, rev) into the project's mirrors, and advances a mirror
// to rev when it held everything before it: a process that writes and
// searches keeps its mirror current without reading anything back.
func (s *Neo4jStore) applyOwnVectors(project, model, epoch string, rev int64, vectors []core.NoteVector) {
	for _, m := range s.mirrors.ofProject(project) {
		m.mu.Lock()
		if m.state == mirrorReady && sameLife(m.epoch, m.rev, epoch) && m.rev == rev-1 {
			for _, v := range vectors {
				m.setLocked(v.ID, model, v.Vector)
			}
			m.advanceLocked(epoch, rev, s.cfg.VectorCache)
		}
		m.mu.Unlock()
	}
}
