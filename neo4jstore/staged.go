package neo4jstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/vaultgraph/vaultgraph/core"
)

// stagedSizes are the chunk sizes of UpsertNotesStaged. Stage 1 carries
// the notes' text, so it is bounded by bytes as well; stage 2 carries only
// IDs and keys. Tests shrink them to get many chunks from few notes.
type stagedSizes struct {
	notes, bytes, links, probe int
	writers                    int // concurrent stage-1 transactions
}

// defaultStagedSizes were chosen by measuring a first sync of 10k and 100k
// notes (docs/BENCHMARKS.md): beyond them transactions got no cheaper per
// note, and a second writer in stage 1 uses Neo4j's second core.
var defaultStagedSizes = stagedSizes{notes: 2000, bytes: 24 << 20, links: 5000, probe: 20000, writers: 2}

// UpsertNotesStaged writes a large set of notes (see core.StagedWriter):
// one staged stream (BeginStaged) given every note in one part.
func (s *Neo4jStore) UpsertNotesStaged(ctx context.Context, project string, notes []core.Note, progress func(notes int)) error {
	st, err := s.BeginStaged(ctx, project, progress)
	if err != nil {
		return err
	}
	if err := st.Write(ctx, notes); err != nil {
		return err
	}
	return st.Finish(ctx)
}

// BeginStaged starts a staged write given in parts (core.StagedStreamer),
// in stages of short transactions:
//
//  1. (Write, each part) create the notes that do not exist yet, without
//     relationships, with an empty hash (s.staged.writers transactions at
//     a time); the notes that existed wait for stage 4;
//  2. (Finish) draw their links, set their out-degrees and hashes (every
//     target of the set exists by now, so no link waits as a ghost for a
//     later part or batch, which made a first sync several times slower);
//     resolve older ghosts they claim;
//  3. recount the in-degrees of every note they link to;
//  4. update the notes that existed, in UpsertNotes batches.
//
// A link's target is final only at Finish, when every note of the write
// is known: stage 1 stores each link's target as given (a note of a later
// part, say), and stage 2 rewrites the targets of the notes where that
// differs from what one UpsertNotes call of all the notes would store (a
// target that never came, a key a note of the write claims). What a
// stream keeps between parts is each new note's ID, hash, keys and its
// links' keys and targets, not its text; the notes that existed are kept
// whole (a first sync has none).
//
// In-degrees are recounted once at the end rather than counted up per
// transaction: counting is relative and a concurrent writer's recount is
// absolute, so mixing them could lose links. A crash in stage 1 or 2
// (or a stream never finished) leaves notes without a hash, which the
// next sync rewrites; a crash before stage 3 is done leaves the project's
// degreesPending count above zero, and the next NoteHashes (the start of
// every sync) recounts the degrees of every note of the project.
//
// Links resolve as UpsertNotes would resolve them had all notes been one
// batch. progress receives counts adding up to the notes given.
func (s *Neo4jStore) BeginStaged(_ context.Context, project string, progress func(notes int)) (core.StagedStream, error) {
	return &stagedStream{
		s:        s,
		project:  project,
		report:   syncProgress(progress),
		index:    map[string]int{},
		oldIndex: map[string]int{},
		claimant: map[string]string{},
		p:        map[string]any{"project": project, "rev": nil, "changed": []string{}, "writer": s.holder},
	}, nil
}

// stagedStream is one staged write (BeginStaged).
type stagedStream struct {
	s       *Neo4jStore
	project string
	report  func(func() int)
	// p: the statements' parameters; rev is set by the first Write and
	// marks the notes stage 1 created (targets[0]), so that stage 2 skips
	// those another writer rewrote meanwhile.
	p   map[string]any
	rev string

	fresh    []freshNote       // the new notes, in the order given
	index    map[string]int    // ID -> its index in fresh
	old      []core.Note       // the notes that existed, kept whole for stage 4
	oldIndex map[string]int    // ID -> its index in old
	claimant map[string]string // link key -> smallest ID of the write claiming it
	reported int               // progress reported for fresh notes
	failed   error             // a Write failed: the stream is done
}

// freshNote is what a stream keeps of a note stage 1 created: no text.
type freshNote struct {
	id, hash string
	keys     []string // the note's keys, which it claims
	linkKeys []string // each link's key
	given    []string // each link's target as given ("" unresolved), as stage 1 stored it
}

// Write creates the part's new notes (stage 1) and keeps the notes that
// existed for Finish. The transactions take one revision and not the
// project's lock: they create notes no writer can see linked yet, and a
// writer racing to create the same ID makes the constraint fail one of
// them, to be retried.
func (st *stagedStream) Write(ctx context.Context, notes []core.Note) error {
	if st.failed != nil {
		return st.failed
	}
	err := st.write(ctx, notes)
	if err != nil {
		st.failed = err
	}
	return err
}

func (st *stagedStream) write(ctx context.Context, notes []core.Note) error {
	s := st.s
	given := len(notes)
	notes = lastByID(notes)
	for i := range notes {
		if notes[i].ID == "" {
			return fmt.Errorf("neo4jstore: upsert notes: %w", core.InvalidArgument("note %d has an empty ID", i))
		}
	}
	st.report(func() int { return given - len(notes) }) // the repeated IDs, so the counts add up
	if len(notes) == 0 {
		return nil
	}
	// Which notes are new: neither created by this stream nor in Neo4j.
	var probe []string
	for i := range notes {
		if _, ok := st.index[notes[i].ID]; !ok {
			if _, ok := st.oldIndex[notes[i].ID]; !ok {
				probe = append(probe, notes[i].ID)
			}
		}
	}
	existing, err := s.existingIDs(ctx, st.project, probe, s.staged.probe)
	if err != nil {
		return err
	}
	var fresh []core.Note
	for _, n := range notes {
		for _, k := range n.Keys {
			if c, ok := st.claimant[k]; !ok || n.ID < c {
				st.claimant[k] = n.ID
			}
		}
		if i, ok := st.oldIndex[n.ID]; ok {
			st.old[i] = n                      // a later version of a note kept for stage 4
			st.report(func() int { return 1 }) // the version it replaces
			continue
		}
		if _, created := st.index[n.ID]; created || existing[n.ID] {
			// A note that existed, or one an earlier part created:
			// written whole in stage 4, after the links.
			st.oldIndex[n.ID] = len(st.old)
			st.old = append(st.old, n)
			continue
		}
		fresh = append(fresh, n)
	}
	if len(fresh) == 0 {
		return nil
	}
	if st.rev == "" {
		// The revision: a bump of the change counter. It lists the first
		// part's new notes; Finish lists them all, for the note catalogs.
		err = s.write(ctx, "upsert notes (stage 1: revision)", func(t txn) error {
			bumped, err := t.single(stmtWriteBumpVersion, with(st.p, "changed", changedIDs(idsOf(fresh))))
			if err == nil {
				st.rev = strconv.FormatInt(num(bumped.Values[0]), 10)
			}
			return err
		})
		if err != nil {
			return err
		}
		st.p["rev"] = st.rev
	}
	var created int
	err = concurrently(ctx, s.staged.writers, chunkNotes(fresh, s.staged.notes, s.staged.bytes), func(ctx context.Context, chunk []core.Note) error {
		rows := make([]map[string]any, len(chunk))
		for i := range chunk {
			row, err := noteRow(&chunk[i], st.rev, givenTargets(chunk[i].Links))
			if err != nil {
				return err
			}
			row["hash"] = ""          // stage 2
			row["found"] = []string{} // out-degree 0 until stage 2
			rows[i] = row
		}
		err := s.write(ctx, "upsert notes (stage 1: notes)", func(t txn) error {
			_, err := t.collect(stmtWriteCreateNotes, with(st.p, "rows", rows))
			return err
		})
		if err == nil {
			// A third of each new note now, a third when its links are
			// drawn, a third when the in-degrees are recounted.
			st.report(func() int { before := created / 3; created += len(chunk); return created/3 - before })
		}
		return err
	})
	if err != nil {
		return err
	}
	for i := range fresh {
		n := &fresh[i]
		f := freshNote{id: n.ID, hash: n.Hash, keys: n.Keys, linkKeys: make([]string, len(n.Links)), given: givenTargets(n.Links)}
		for j := range n.Links {
			f.linkKeys[j] = n.Links[j].Key
		}
		st.index[n.ID] = len(st.fresh)
		st.fresh = append(st.fresh, f)
	}
	st.reported += created / 3
	return nil
}

// givenTargets is each link's target as given, "" for an unresolved one.
func givenTargets(links []core.Link) []string {
	out := make([]string, len(links))
	for i := range links {
		out[i] = links[i].Target
	}
	return out
}

// Finish runs stages 2 to 4 (see BeginStaged).
func (st *stagedStream) Finish(ctx context.Context) error {
	if st.failed != nil {
		return st.failed
	}
	st.failed = errFinished
	s, p, project := st.s, st.p, st.project
	defer s.rankWrote(project)

	// Which targets outside the write exist; then every link's final
	// target, as one UpsertNotes call of all the notes would store it.
	var probe []string
	for i := range st.fresh {
		for _, t := range st.fresh[i].given {
			if t != "" && !st.inWrite(t) {
				probe = append(probe, t)
			}
		}
	}
	for i := range st.old {
		for _, l := range st.old[i].Links {
			if l.Target != "" && !st.inWrite(l.Target) {
				probe = append(probe, l.Target)
			}
		}
	}
	existing, err := s.existingIDs(ctx, project, distinct(probe), s.staged.probe)
	if err != nil {
		return err
	}
	exists := func(id string) bool { return st.inWrite(id) || existing[id] }

	// Stage 2: their links and out-degrees; older ghosts they claim. One
	// transaction at a time, under the project's lock: two concurrent ones
	// contended on hubs and ghosts and were slower than one after the
	// other. Whether the project has any ghost is asked once, under the
	// lock, after stage 1: a writer that makes one later finds the notes of
	// stage 1 and links to them instead, and the ghosts stage 2 makes have
	// keys no note of the set claims.
	fresh := st.fresh
	var ghosts bool
	if len(fresh) > 0 {
		ids := make([]string, len(fresh))
		for i := range fresh {
			ids[i] = fresh[i].id
		}
		err = s.write(ctx, "upsert notes (stage 2: ghosts)", func(t txn) error {
			if _, err := t.single(stmtWriteBumpVersion, with(p, "changed", changedIDs(ids))); err != nil {
				return err
			}
			if _, err := t.single(stmtWriteDegreesPending, with(p, "delta", int64(1))); err != nil {
				return err
			}
			r, err := t.single(stmtWriteAnyGhost, p)
			if err == nil {
				ghosts = r.Values[0].(bool)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	// Progress: a third of the new notes once they are all created.
	third := len(fresh) / 3
	st.report(func() int { k := third - st.reported; st.reported = third; return k })
	share := func(drawn int) int { return (len(fresh)+drawn)/3 - third }
	var linked []string // every note a new note links to
	var drawn int
	err = concurrently(ctx, 1, slices.Collect(slices.Chunk(fresh, s.staged.links)), func(ctx context.Context, chunk []freshNote) error {
		rows, claims, to := st.linkRows(chunk, exists)
		err := s.write(ctx, "upsert notes (stage 2: links)", func(t txn) error {
			if _, err := t.single(stmtWriteBumpVersion, p); err != nil {
				return err
			}
			if _, err := t.collect(stmtWriteLinkNew, with(p, "rows", rows)); err != nil {
				return err
			}
			if !ghosts || len(claims) == 0 {
				return nil
			}
			_, err := t.collect(stmtWriteResolveLinks, with(p, "claims", claims))
			return err
		})
		if err == nil {
			linked = append(linked, to...)
			st.report(func() int { before := share(drawn); drawn += len(chunk); return share(drawn) - before })
		}
		return err
	})
	if err != nil {
		return err
	}
	linked = distinct(linked)

	// Stage 3: exact in-degrees of everything linked to; then the write
	// is no longer pending.
	for start := 0; start < len(linked); start += s.staged.probe {
		ids := linked[start:min(start+s.staged.probe, len(linked))]
		last := start+len(ids) == len(linked)
		err := s.write(ctx, "upsert notes (stage 3: degrees)", func(t txn) error {
			if _, err := t.single(stmtWriteBumpVersion, p); err != nil {
				return err
			}
			if err := updateDegrees(t, p, ids); err != nil || !last {
				return err
			}
			_, err := t.single(stmtWriteDegreesPending, with(p, "delta", int64(-1)))
			return err
		})
		if err != nil {
			return err
		}
	}
	if len(linked) == 0 && len(fresh) > 0 {
		if err := s.degreesPending(ctx, project, -1); err != nil {
			return err
		}
	}
	st.report(func() int { return len(fresh) - third - share(drawn) })

	// Stage 4: notes that existed, as ordinary batches; every note of the
	// set exists by now, so their links find their targets. A link of
	// theirs without a target that exists gets the note of the set that
	// claims its key, as in one batch; a batch of stage 4 alone would
	// leave it unresolved when the claimant was written in another.
	// In ID order: when two of them claim the key of an older ghost, the
	// batch with the smaller ID comes first and wins, as in one batch.
	old := st.old
	slices.SortFunc(old, func(a, b core.Note) int { return strings.Compare(a.ID, b.ID) })
	for i := range old {
		links := slices.Clone(old[i].Links)
		for j, t := range resolveTargets(links, exists, st.claimant) {
			links[j].Target = t
		}
		old[i].Links = links
	}
	for _, chunk := range chunkNotes(old, s.staged.notes, s.staged.bytes) {
		if err := s.UpsertNotes(ctx, project, chunk); err != nil {
			return err
		}
		st.report(func() int { return len(chunk) })
	}
	return nil
}

// errFinished is what a stream answers once Finish was called.
var errFinished = core.InvalidArgument("neo4jstore: the staged write is finished")

// inWrite reports whether the stream was given a note of that ID.
func (st *stagedStream) inWrite(id string) bool {
	if _, ok := st.index[id]; ok {
		return true
	}
	_, ok := st.oldIndex[id]
	return ok
}

// linkRows builds stage 2's statement rows for new notes: per note its
// hash, distinct targets (found), unresolved keys (dangling) and, when
// they differ from those stage 1 stored, its targets; the keys these notes
// claim; and the notes they link to.
func (st *stagedStream) linkRows(chunk []freshNote, exists func(string) bool) (rows, claims []map[string]any, linked []string) {
	for i := range chunk {
		n := &chunk[i]
		found, dangling := []string{}, []string{}
		var targets []string // nil: as stage 1 stored them
		for j, given := range n.given {
			key := n.linkKeys[j]
			target := given
			if given == "" || !exists(given) {
				target = st.claimant[key]
			}
			if target != given && targets == nil {
				targets = make([]string, 1, 1+len(n.given))
				targets[0] = st.rev
				targets = append(targets, n.given[:j]...)
			}
			if targets != nil {
				targets = append(targets, target)
			}
			switch {
			case target != "":
				if !slices.Contains(found, target) {
					found = append(found, target)
				}
			case !slices.Contains(dangling, key):
				dangling = append(dangling, key)
			}
		}
		row := map[string]any{"id": n.id, "hash": n.hash, "found": found, "dangling": dangling}
		if targets != nil {
			row["targets"] = targets
		}
		rows = append(rows, row)
		linked = append(linked, found...)
		for _, k := range n.keys {
			if st.claimant[k] == n.id {
				claims = append(claims, map[string]any{"key": k, "id": n.id})
			}
		}
	}
	return rows, claims, linked
}

// syncProgress makes progress safe to call from concurrent stages: each
// call of the returned function adds what its argument computes, under a
// lock (the argument may read and update the caller's counters).
func syncProgress(progress func(int)) func(func() int) {
	var mu sync.Mutex
	return func(n func() int) {
		mu.Lock()
		defer mu.Unlock()
		if k := n(); k != 0 && progress != nil {
			progress(k)
		}
	}
}

// existingIDs reports which of ids name notes of the project.
func (s *Neo4jStore) existingIDs(ctx context.Context, project string, ids []string, chunk int) (map[string]bool, error) {
	existing := make(map[string]bool)
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		err := s.read(ctx, "upsert notes (which exist)", func(t txn) error {
			r, err := t.single(stmtWriteExisting, map[string]any{"project": project, "ids": part})
			if err != nil {
				return err
			}
			for _, id := range strs(r.Values[0]) {
				existing[id] = true
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return existing, nil
}

// chunkNotes splits notes into runs of at most maxNotes notes and, unless
// one note alone exceeds it, maxBytes of content.
func chunkNotes(notes []core.Note, maxNotes, maxBytes int) [][]core.Note {
	var out [][]core.Note
	start, size := 0, 0
	for i := range notes {
		n := len(notes[i].Content)
		if i > start && (i-start == maxNotes || size+n > maxBytes) {
			out = append(out, notes[start:i])
			start, size = i, 0
		}
		size += n
	}
	if start < len(notes) {
		out = append(out, notes[start:])
	}
	return out
}

var _ core.StagedStreamer = (*Neo4jStore)(nil)

// concurrently calls work on each item with at most n calls at a time,
// and returns the first error (the calls not yet started are skipped).
func concurrently[T any](ctx context.Context, n int, items []T, work func(context.Context, T) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan T)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for item := range next {
				if err := work(ctx, item); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		}()
	}
feed:
	for _, item := range items {
		select {
		case next <- item:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first == nil {
		first = ctx.Err() // the caller's context ended
	}
	return first
}

// degreesPending adds delta to the project's count of staged writes whose
// degree recount is outstanding.
func (s *Neo4jStore) degreesPending(ctx context.Context, project string, delta int64) error {
	return s.write(ctx, "upsert notes (pending degrees)", func(t txn) error {
		_, err := t.single(stmtWriteDegreesPending, map[string]any{"project": project, "delta": delta})
		return err
	})
}

// repairDegrees recounts the degrees of every note of the project when a
// staged write was cut off before its recount (degreesPending above zero
// while no staged write of this Store runs), then clears the count.
func (s *Neo4jStore) repairDegrees(ctx context.Context, project string, ids []string) error {
	var pending int64
	err := s.read(ctx, "pending degrees", func(t txn) error {
		r, err := t.single(stmtReadDegreesPending, map[string]any{"project": project})
		if err == nil {
			pending = num(r.Values[0])
		}
		return err
	})
	if err != nil || pending == 0 {
		return err
	}
	s.log.Warn("a staged write was cut off before recounting degrees; recounting the project's", "project", project, "notes", len(ids))
	p := map[string]any{"project": project, "changed": []string{}, "writer": s.holder}
	for start := 0; start < len(ids); start += s.staged.probe {
		part := ids[start:min(start+s.staged.probe, len(ids))]
		err := s.write(ctx, "repair degrees", func(t txn) error {
			if _, err := t.single(stmtWriteBumpVersion, p); err != nil {
				return err
			}
			return updateDegrees(t, p, part)
		})
		if err != nil {
			return err
		}
	}
	s.rankWrote(project)
	return s.degreesPending(ctx, project, -pending)
}
