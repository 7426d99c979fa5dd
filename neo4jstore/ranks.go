package neo4jstore

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// PageRank is derived from the whole graph, so it is computed once per
// change of the graph for every process that serves the project, and kept
// in Neo4j:
//
//	(:GraphRank {project, version, computedAt, took_ms, notes, ids, scores})
//
// holds the top rankKeep notes (ids and scores in core.CompareHubs order)
// as of the change counter version (GraphMeta.version, bumped by every
// write). Hubs(pagerank) reads it in one statement, with the current
// counter and the titles of the notes it returns; it never reads the
// graph. When the ranking is older than the counter the answer is that
// older ranking (notes deleted since left out), and the call carries a
// warning (core.AddCallWarnings, the tool's _warnings) saying how old it
// is and how many writes it does not reflect.
//
// Recomputing: a process that wrote to a project, or read its ranking and
// found it behind, runs a loop for the project (rankLoop) until the ranking
// is current. The loop waits for writes to settle, debounced by what a
// computation costs: it starts once no write came for twice the last
// computation's time (at most rankSettle), or rankMaxDelay after the first
// write the ranking misses, whichever is first. Then it takes the
// project's "pagerank" lease (lease.go): of all the processes waiting, one
// reads the graph (ranks_graph: every note's targets, one property per
// note), computes core.PageRankScores and saves the ranking; the others see
// the lease taken, and then the ranking current. A ranking is only ever
// replaced by one of a newer counter.
//
// Reads wait for the background only where that is cheap: when there is no
// ranking at all (a new project), the call waits for the first one; when
// the last computation took under rankQuickCompute, a read that finds the
// ranking behind waits up to rankReadWait for this process's loop. Close
// finishes the ranking of projects this Store wrote to, so that a one-shot
// `vaultgraph sync` leaves it current.

// rankKeep is how many notes a stored ranking holds: get_hubs asks for at
// most core.MaxHubLimit; the rest leaves room for notes deleted since.
const rankKeep = 1000

// rankLease names the lease of the PageRank computation.
const rankLease = "pagerank"

// Tuning of the background computation; variables so tests can shorten
// them.
var (
	rankSettle       = 2 * time.Second        // most quiet time awaited after a write
	rankMaxDelay     = 10 * time.Second       // most time a write waits for its ranking under a stream of writes
	rankPoll         = 500 * time.Millisecond // re-check while another process holds the lease
	rankRetry        = 5 * time.Second        // after a failure (Neo4j down)
	rankReadWait     = 150 * time.Millisecond // most a read waits for a quick recomputation
	rankQuickCompute = 50 * time.Millisecond  // computations up to this are waited for by reads
)

// ranker tracks the projects whose ranking this process keeps current.
type ranker struct {
	mu   sync.Mutex
	jobs map[string]*rankJob
}

type rankJob struct {
	running bool          // rankLoop runs for the project
	dirty   bool          // a write or a stale read since the loop last checked
	wrote   bool          // this Store wrote since its last computation (Close finishes it)
	round   chan struct{} // closed when the loop finishes a check or computation
	took    time.Duration // the last computation seen (this process's or stored)
	compute sync.Mutex    // one rankRound at a time (the loop's and Close's)
}

func newRanker() *ranker { return &ranker{jobs: map[string]*rankJob{}} }

func (r *ranker) jobLocked(project string) *rankJob {
	j := r.jobs[project]
	if j == nil {
		j = &rankJob{round: make(chan struct{})}
		r.jobs[project] = j
	}
	return j
}

// rankWrote records that this Store wrote to project: its ranking is behind
// and this process will see to it.
func (s *Neo4jStore) rankWrote(project string) {
	s.ranks.mu.Lock()
	s.ranks.jobLocked(project).wrote = true
	s.ranks.mu.Unlock()
	s.rankPoke(project)
}

// rankPoke makes sure a loop keeps project's ranking current, and returns
// the channel closed at the loop's next round.
func (s *Neo4jStore) rankPoke(project string) <-chan struct{} {
	s.ranks.mu.Lock()
	defer s.ranks.mu.Unlock()
	j := s.ranks.jobLocked(project)
	j.dirty = true
	if !j.running && s.life.Err() == nil {
		j.running = true
		s.background.Add(1)
		go s.rankLoop(project, j)
	}
	return j.round
}

// endRound wakes the readers waiting for j's loop.
func (s *Neo4jStore) endRound(j *rankJob) {
	s.ranks.mu.Lock()
	close(j.round)
	j.round = make(chan struct{})
	s.ranks.mu.Unlock()
}

// rankState is where a project's stored ranking stands.
type rankState struct {
	version int64         // the change counter
	ranked  int64         // the stored ranking's counter; -1: none
	took    time.Duration // the stored ranking's computation time
	quiet   time.Duration // since the last write
	behind  time.Duration // since the first write the ranking misses; -1: unknown
}

func (st rankState) current() bool { return st.ranked >= st.version }

// wait returns how long to wait before computing: until writes settle
// (twice the last computation, at most rankSettle) or the oldest missed
// write has waited rankMaxDelay; 0 for the first ranking.
func (st rankState) wait() time.Duration {
	if st.ranked < 0 || st.behind < 0 {
		return 0
	}
	settle := min(2*st.took, rankSettle)
	return max(0, min(settle-st.quiet, rankMaxDelay-st.behind))
}

func (s *Neo4jStore) readRankState(ctx context.Context, project string) (rankState, error) {
	st := rankState{ranked: -1, behind: -1}
	err := s.read(ctx, "pagerank state", func(t txn) error {
		r, err := t.single(stmtRanksState, map[string]any{"project": project})
		if err != nil || r == nil {
			return err
		}
		st.version = num(r.Values[0])
		if r.Values[1] != nil {
			st.ranked = num(r.Values[1])
		}
		st.took = time.Duration(num(r.Values[2])) * time.Millisecond
		st.quiet = time.Duration(num(r.Values[3])) * time.Millisecond
		if r.Values[4] != nil {
			st.behind = time.Duration(num(r.Values[4])) * time.Millisecond
		}
		return nil
	})
	return st, err
}

// rankLoop keeps project's ranking current until it is, then ends; writes
// and stale reads start it again (rankPoke).
func (s *Neo4jStore) rankLoop(project string, j *rankJob) {
	defer s.background.Done()
	ctx := s.life
	sleep := func(d time.Duration) bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(d):
			return true
		}
	}
	for ctx.Err() == nil {
		s.ranks.mu.Lock()
		j.dirty = false
		s.ranks.mu.Unlock()
		st, err := s.readRankState(ctx, project)
		if err == nil && !st.current() {
			if d := st.wait(); d > 0 {
				if !sleep(d) {
					break
				}
				continue
			}
			var computed bool
			computed, err = s.rankRound(ctx, project, st.took)
			if err == nil && !computed && !sleep(rankPoll) { // another process computes
				break
			}
			if err == nil {
				continue
			}
		}
		s.endRound(j)
		if err != nil {
			// Neo4j failing: end here rather than retry in a loop while it is
			// down; the next write or stale read starts the loop again.
			if ctx.Err() == nil {
				s.log.Warn("pagerank: recomputing the stored ranking failed; the next write or read tries again", "project", project, "err", err)
			}
			sleep(rankRetry) // at most one failing try per rankRetry
			break
		}
		s.ranks.mu.Lock()
		if !j.dirty {
			j.running = false
			s.ranks.mu.Unlock()
			return
		}
		s.ranks.mu.Unlock()
	}
	// Wake the reads that poked the loop since its last round (during
	// the retry pause above): they read again and start a new loop.
	s.ranks.mu.Lock()
	j.running = false
	close(j.round)
	j.round = make(chan struct{})
	s.ranks.mu.Unlock()
}

// rankRound computes and saves project's ranking if this Store gets the
// lease; computed is false when another process holds it.
func (s *Neo4jStore) rankRound(ctx context.Context, project string, lastTook time.Duration) (computed bool, err error) {
	// The lease is per Store, so two rounds of this Store (the loop's and
	// Close's) would both hold it: they take turns, and the second finds
	// the ranking current.
	s.ranks.mu.Lock()
	j := s.ranks.jobLocked(project)
	s.ranks.mu.Unlock()
	j.compute.Lock()
	defer j.compute.Unlock()
	lease, err := s.tryLease(ctx, project, rankLease, max(time.Minute, 4*lastTook))
	if err != nil || !lease.Held {
		return false, err
	}
	defer func() {
		if rerr := s.ReleaseLease(context.WithoutCancel(ctx), project, rankLease); rerr != nil && err == nil {
			s.log.Debug("pagerank: releasing the lease failed; it expires", "project", project, "err", rerr)
		}
	}()
	// Another process may have saved a current ranking just before it gave
	// the lease back.
	if st, err := s.readRankState(ctx, project); err != nil || st.current() {
		return err == nil, err
	}
	s.ranks.mu.Lock()
	j.wrote = false
	s.ranks.mu.Unlock()
	took, err := s.computeRanks(ctx, project)
	if err != nil {
		return false, err
	}
	s.ranks.mu.Lock()
	j.took = took
	s.ranks.mu.Unlock()
	s.endRound(j)
	return true, nil
}

// computeRanks reads the settled counter (project_settled: every write up
// to it is whole), then the graph, computes PageRank and saves the top
// rankKeep notes labelled with that counter. A write committing after the
// counter makes the ranking newer than its label, which only costs a
// recomputation. Reading the counter without waiting for writes in flight
// let a half-applied write's bump label a stale ranking as current (1 run in
// 15 of TestPageRankFollowsWritesOfAnotherProcess).
func (s *Neo4jStore) computeRanks(ctx context.Context, project string) (time.Duration, error) {
	start := time.Now()
	var (
		ids   []string
		edges [][2]string
	)
	version, _, err := s.settledVersion(ctx, project)
	if err != nil {
		return 0, err
	}
	err = s.read(ctx, "pagerank graph", func(t txn) error {
		records, err := t.collect(stmtRanksGraph, map[string]any{"project": project})
		if err != nil {
			return err
		}
		ids, edges = make([]string, 0, len(records)), edges[:0]
		for _, r := range records {
			id := str(r.Values[0])
			ids = append(ids, id)
			for _, target := range strs(r.Values[1]) {
				if target != "" {
					edges = append(edges, [2]string{id, target})
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	hubs := core.RankHubs(core.PageRankScores(ids, edges), rankKeep)
	top := make([]string, len(hubs))
	scores := make([]float64, len(hubs))
	for i, h := range hubs {
		top[i], scores[i] = h.ID, h.Score
	}
	took := time.Since(start)
	err = s.write(ctx, "save pagerank", func(t txn) error {
		_, err := t.collect(stmtRanksSave, map[string]any{
			"project": project, "version": version, "took_ms": took.Milliseconds(),
			"notes": int64(len(ids)), "ids": top, "scores": scores,
		})
		return err
	})
	if err != nil {
		return 0, err
	}
	s.log.Debug("pagerank computed and saved", "project", project, "version", version, "notes", len(ids),
		"edges", len(edges), "seconds", took.Seconds())
	s.observer().Reloaded("pagerank", took)
	s.observer().Derived(project, "pagerank", time.Now())
	return took, nil
}

// storedRanking is what ranks_read gives.
type storedRanking struct {
	version int64 // the change counter
	ranked  int64 // the ranking's counter; -1: no ranking
	age     time.Duration
	hubs    []core.Hub // the ranking's first notes that still exist, in order
}

func (s *Neo4jStore) readRanking(ctx context.Context, project string, fetch int) (storedRanking, error) {
	out := storedRanking{ranked: -1}
	err := s.read(ctx, "pagerank", func(t txn) error {
		r, err := t.single(stmtRanksRead, map[string]any{"project": project, "fetch": int64(fetch)})
		if err != nil || r == nil {
			return err
		}
		out.version = num(r.Values[0])
		if r.Values[1] != nil {
			out.ranked = num(r.Values[1])
		}
		out.age = time.Duration(num(r.Values[2])) * time.Millisecond
		if out.ranked >= 0 {
			s.observer().Derived(project, "pagerank", time.Now().Add(-out.age))
		}
		rows, _ := r.Values[3].([]any)
		type row struct {
			i   int64
			hub core.Hub
		}
		got := make([]row, 0, len(rows))
		for _, v := range rows {
			cols, _ := v.([]any)
			if len(cols) != 4 {
				continue
			}
			score, _ := cols[3].(float64)
			got = append(got, row{num(cols[0]), core.Hub{ID: str(cols[1]), Title: str(cols[2]), Score: score}})
		}
		slices.SortFunc(got, func(a, b row) int { return int(a.i - b.i) })
		out.hubs = make([]core.Hub, len(got))
		for i, g := range got {
			out.hubs[i] = g.hub
		}
		return nil
	})
	return out, err
}

// pageRankHubs returns the top limit notes of the stored ranking (see the
// top of this file), at most rankKeep.
func (s *Neo4jStore) pageRankHubs(ctx context.Context, project string, limit int) ([]core.Hub, error) {
	fetch := rankKeep
	if limit > 0 {
		fetch = min(limit+rankSlack, rankKeep)
	}
	rk, err := s.readRanking(ctx, project, fetch)
	if err != nil {
		return nil, err
	}
	if !rk.current() {
		round := s.rankPoke(project)
		if wait := s.rankWait(project, rk); wait > 0 {
			// Every wait here is bounded: a loop that ends on a failure
			// wakes its waiters, but a read must not hang on Neo4j's
			// recovery either (the answer then carries the warning).
			waitCtx, cancel := context.WithTimeout(ctx, wait)
			select {
			case <-round:
			case <-waitCtx.Done():
			}
			for rk.ranked < 0 && waitCtx.Err() == nil { // the first ranking: wait for it
				if rk, err = s.readRanking(ctx, project, fetch); err != nil || rk.ranked >= 0 {
					break
				}
				select {
				case <-s.rankPoke(project):
				case <-time.After(rankPoll):
				case <-waitCtx.Done():
				}
			}
			cancel()
			if err == nil && ctx.Err() == nil {
				rk, err = s.readRanking(ctx, project, fetch)
			}
			if err != nil {
				return nil, err
			}
		}
		if !rk.current() {
			core.AddCallWarnings(ctx, rk.warning())
		}
	}
	hubs := rk.hubs
	if limit > 0 && len(hubs) > limit {
		hubs = hubs[:limit]
	}
	return hubs, nil
}

// rankFinishTimeout bounds what Close spends on finishing rankings (a
// 100k-note graph takes a few seconds; an unreachable Neo4j must not hold a
// closing process for long).
const rankFinishTimeout = 2 * time.Minute

// rankSlack is how many notes beyond the limit a read fetches, for the
// notes of an older ranking deleted since.
const rankSlack = 16

func (rk storedRanking) current() bool { return rk.ranked >= 0 && rk.ranked >= rk.version }

// warning says how far behind the graph an answer's ranking is.
func (rk storedRanking) warning() string {
	if rk.ranked < 0 {
		return "pagerank: no ranking has been computed for this vault yet; it is being computed in the background, ask again shortly"
	}
	return fmt.Sprintf("pagerank: ranking computed %s ago, before the latest %d change(s) to the graph; it is being recomputed in the background",
		rk.age.Round(time.Second), rk.version-rk.ranked)
}

// rankWait is how long a read that found rk behind waits for this
// process's loop: until the first ranking exists (at most a call's
// Config.Timeout), up to rankReadWait when computations are quick, else not.
func (s *Neo4jStore) rankWait(project string, rk storedRanking) time.Duration {
	if rk.ranked < 0 {
		return s.cfg.Timeout
	}
	s.ranks.mu.Lock()
	took := s.ranks.jobLocked(project).took
	s.ranks.mu.Unlock()
	if took > 0 && took <= rankQuickCompute {
		return rankReadWait
	}
	return 0
}

// finishRanks computes, before the Store closes, the rankings of the
// projects this Store wrote to that are still behind (unless another
// process holds the lease): a one-shot sync leaves them current.
func (s *Neo4jStore) finishRanks(ctx context.Context) {
	s.ranks.mu.Lock()
	var projects []string
	for p, j := range s.ranks.jobs {
		if j.wrote {
			projects = append(projects, p)
		}
	}
	s.ranks.mu.Unlock()
	if len(projects) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, rankFinishTimeout)
	defer cancel()
	for _, p := range projects {
		st, err := s.readRankState(ctx, p)
		if err != nil || st.current() {
			continue
		}
		if _, err := s.rankRound(ctx, p, st.took); err != nil && ctx.Err() == nil {
			s.log.Warn("pagerank: computing the ranking before closing failed; another process will", "project", p, "err", err)
		}
	}
}

// settledVersion returns project's change counter once no write of it is
// in flight (project_settled), and its count of staged writes still drawing
// links: data read after it is at least as new as the counter says.
func (s *Neo4jStore) settledVersion(ctx context.Context, project string) (version, pending int64, err error) {
	err = s.write(ctx, "settled change counter", func(t txn) error {
		r, err := t.single(stmtProjectSettled, map[string]any{"project": project})
		if err != nil {
			return err
		}
		version, pending = num(r.Values[0]), num(r.Values[1])
		return nil
	})
	return version, pending, err
}
