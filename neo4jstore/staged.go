package neo4jstore

import (
	"context"
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

// UpsertNotesStaged writes a large set of notes (see core.StagedWriter) in
// stages of short transactions:
//
//  1. create the notes that do not exist yet, without relationships, with
//     an empty hash (s.staged.writers transactions at a time);
//  2. draw their links, set their out-degrees and hashes (every target of
//     the set exists by now, so no link waits as a ghost for a later
//     batch, which made a first sync several times slower); resolve older
//     ghosts they claim;
//  3. recount the in-degrees of every note they link to;
//  4. update the notes that existed, in UpsertNotes batches.
//
// In-degrees are recounted once at the end rather than counted up per
// transaction: counting is relative and a concurrent writer's recount is
// absolute, so mixing them could lose links. A crash in stage 1 or 2
// leaves notes without a hash, which the next sync rewrites; a crash
// before stage 3 is done leaves the project's degreesPending count above
// zero, and the next NoteHashes (the start of every sync) recounts the
// degrees of every note of the project.
//
// Links resolve as UpsertNotes would resolve them had all notes been one
// batch. progress receives counts adding up to len(notes).
func (s *Neo4jStore) UpsertNotesStaged(ctx context.Context, project string, notes []core.Note, progress func(notes int)) error {
	given := len(notes)
	notes = lastByID(notes)
	if len(notes) == 0 {
		return nil
	}
	report := syncProgress(progress)
	defer s.rankWrote(project)
	all, err := newUpsertBatch(notes)
	if err != nil {
		return err
	}
	existing, err := s.existingIDs(ctx, project, all.probe, s.staged.probe)
	if err != nil {
		return err
	}
	exists := func(id string) bool { return all.inBatch[id] || existing[id] }

	var fresh, old []core.Note
	for _, n := range notes {
		if existing[n.ID] {
			old = append(old, n)
		} else {
			fresh = append(fresh, n)
		}
	}
	targets := make(map[string][]string, len(fresh))
	var linked []string // every note a new note links to
	for i := range fresh {
		targets[fresh[i].ID] = resolveTargets(fresh[i].Links, exists, all.claimant)
		for _, t := range targets[fresh[i].ID] {
			if t != "" {
				linked = append(linked, t)
			}
		}
	}
	linked = distinct(linked)
	// rev: set by stage 1; changed (see write_bump_version): the new notes
	// at the revision and when stage 1 is done, for the note catalogs.
	p := map[string]any{"project": project, "rev": nil, "changed": []string{}, "writer": s.holder}
	freshIDs := changedIDs(idsOf(fresh))
	// Progress in notes: a third of each new note per stage 1 to 3, each
	// old note when it is written.
	share := func(stage, done int) int { return (stage*len(fresh) + done) / 3 }

	// Stage 1: the new notes, without links. The transactions take one
	// revision and not the project's lock: they create notes no writer can
	// see linked yet, and a writer racing to create the same ID makes the
	// constraint fail one of them, to be retried.
	var rev string
	err = s.write(ctx, "upsert notes (stage 1: revision)", func(t txn) error {
		bumped, err := t.single(stmtWriteBumpVersion, with(p, "changed", freshIDs))
		if err == nil {
			rev = strconv.FormatInt(num(bumped.Values[0]), 10)
		}
		return err
	})
	if err != nil {
		return err
	}
	p["rev"] = rev
	var created int
	err = concurrently(ctx, s.staged.writers, chunkNotes(fresh, s.staged.notes, s.staged.bytes), func(ctx context.Context, chunk []core.Note) error {
		rows := make([]map[string]any, len(chunk))
		for i := range chunk {
			row, err := noteRow(&chunk[i], rev, targets[chunk[i].ID])
			if err != nil {
				return err
			}
			row["hash"] = ""          // stage 3
			row["found"] = []string{} // out-degree 0 until stage 2
			rows[i] = row
		}
		err := s.write(ctx, "upsert notes (stage 1: notes)", func(t txn) error {
			_, err := t.collect(stmtWriteCreateNotes, with(p, "rows", rows))
			return err
		})
		if err == nil {
			report(func() int { before := share(0, created); created += len(chunk); return share(0, created) - before })
		}
		return err
	})
	if err != nil {
		return err
	}

	// Stage 2: their links and out-degrees; older ghosts they claim. One
	// transaction at a time, under the project's lock: two concurrent ones
	// contended on hubs and ghosts and were slower than one after the
	// other. Whether the project has any ghost is asked once, under the
	// lock, after stage 1: a writer that makes one later finds the notes of
	// stage 1 and links to them instead, and the ghosts stage 2 makes have
	// keys no note of the set claims.
	var ghosts bool
	if len(fresh) > 0 {
		err = s.write(ctx, "upsert notes (stage 2: ghosts)", func(t txn) error {
			if _, err := t.single(stmtWriteBumpVersion, with(p, "changed", freshIDs)); err != nil {
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
	var drawn int
	err = concurrently(ctx, 1, slices.Collect(slices.Chunk(fresh, s.staged.links)), func(ctx context.Context, chunk []core.Note) error {
		rows, claims := linkRows(chunk, targets, all.claimant)
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
			report(func() int { before := share(1, drawn); drawn += len(chunk); return share(1, drawn) - before })
		}
		return err
	})
	if err != nil {
		return err
	}

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
	report(func() int { return len(fresh) - share(2, 0) })

	// Stage 4: notes that existed, as ordinary batches; every note of the
	// set exists by now, so their links find their targets. A link of
	// theirs without a target that exists gets the note of the set that
	// claims its key, as in one batch; a batch of stage 4 alone would
	// leave it unresolved when the claimant was written in another.
	// In ID order: when two of them claim the key of an older ghost, the
	// batch with the smaller ID comes first and wins, as in one batch.
	slices.SortFunc(old, func(a, b core.Note) int { return strings.Compare(a.ID, b.ID) })
	for i := range old {
		links := slices.Clone(old[i].Links)
		for j, t := range resolveTargets(links, exists, all.claimant) {
			links[j].Target = t
		}
		old[i].Links = links
	}
	for _, chunk := range chunkNotes(old, s.staged.notes, s.staged.bytes) {
		if err := s.UpsertNotes(ctx, project, chunk); err != nil {
			return err
		}
		report(func() int { return len(chunk) })
	}
	report(func() int { return given - len(notes) }) // the repeated IDs, so the counts add up
	return nil
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

// linkRows builds stage 2's statement rows for new notes: per note its
// hash, distinct targets (found) and unresolved keys (dangling); and the
// keys these notes claim.
func linkRows(chunk []core.Note, targets map[string][]string, claimant map[string]string) (rows, claims []map[string]any) {
	for i := range chunk {
		n := &chunk[i]
		found, dangling := []string{}, []string{}
		for j, target := range targets[n.ID] {
			key := n.Links[j].Key
			switch {
			case target != "":
				if !slices.Contains(found, target) {
					found = append(found, target)
				}
			case !slices.Contains(dangling, key):
				dangling = append(dangling, key)
			}
		}
		rows = append(rows, map[string]any{"id": n.ID, "hash": n.Hash, "found": found, "dangling": dangling})
		for _, k := range n.Keys {
			if claimant[k] == n.ID {
				claims = append(claims, map[string]any{"key": k, "id": n.ID})
			}
		}
	}
	return rows, claims
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

var _ core.StagedWriter = (*Neo4jStore)(nil)

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
