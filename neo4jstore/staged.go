package neo4jstore

import (
	"context"
	"slices"
	"strconv"
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
// three stages of short transactions:
//
//  1. create the notes that do not exist yet, without relationships, with
//     an empty hash (so a crash before stage 2 leaves them to be rewritten);
//  2. draw their links (every target of the set exists by now, so no link
//     waits as a ghost for a later batch, which made a first sync several
//     times slower) and set their hash; resolve older ghosts they claim;
//  3. update the notes that existed, in UpsertNotes batches.
//
// Links resolve as UpsertNotes would resolve them had all notes been one
// batch. progress receives counts adding up to len(notes).
func (s *Store) UpsertNotesStaged(ctx context.Context, project string, notes []core.Note, progress func(notes int)) error {
	notes = lastByID(notes)
	if len(notes) == 0 {
		return nil
	}
	if progress == nil {
		progress = func(int) {}
	}
	var progressMu sync.Mutex
	halfReported := 0 // by stage 1; stage 2 reports the rest of len(fresh)
	defer s.ranks.forget(project)
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
	inDegree := map[string]int64{} // of new notes: the new notes linking to them
	for i := range fresh {
		targets[fresh[i].ID] = resolveTargets(fresh[i].Links, exists, all.claimant)
		for _, target := range distinct(targets[fresh[i].ID]) {
			if target != "" && !existing[target] {
				inDegree[target]++
			}
		}
	}
	p := map[string]any{"project": project}

	// Stage 1: the new notes, without links, in s.staged.writers concurrent
	// transactions (Neo4j runs each on one core). They take one revision
	// and not the project's lock: they create notes no writer can see
	// linked yet, and a writer racing to create the same ID makes the
	// constraint fail one of them, to be retried.
	var rev string
	err = s.write(ctx, "upsert notes (stage 1: revision)", func(t txn) error {
		bumped, err := t.single(stmtWriteBumpVersion, p)
		if err == nil {
			rev = strconv.FormatInt(num(bumped.Values[0]), 10)
		}
		return err
	})
	if err != nil {
		return err
	}
	err = concurrently(ctx, s.staged.writers, chunkNotes(fresh, s.staged.notes, s.staged.bytes), func(ctx context.Context, chunk []core.Note) error {
		rows := make([]map[string]any, len(chunk))
		for i := range chunk {
			row, err := noteRow(&chunk[i], rev, targets[chunk[i].ID])
			if err != nil {
				return err
			}
			// Stage 2 sets the hash and out-degree as it draws the links.
			// The in-degree counts them already: one update per note
			// instead of one per chunk of stage 2 that links to it.
			row["hash"] = ""
			row["found"] = []string{}
			row["inDegree"] = inDegree[chunk[i].ID]
			rows[i] = row
		}
		err := s.write(ctx, "upsert notes (stage 1: notes)", func(t txn) error {
			_, err := t.collect(stmtWriteCreateNotes, with(p, "rows", rows))
			return err
		})
		if err == nil {
			progressMu.Lock()
			progress(len(chunk) / 2)
			halfReported += len(chunk) / 2
			progressMu.Unlock()
		}
		return err
	})
	if err != nil {
		return err
	}

	// Stage 2: their links, hash and out-degree, the in-degrees of older
	// notes they link to, and older ghosts they claim. Whether there are
	// any ghosts is asked once, under the project's lock: a writer that
	// makes one later finds every note of stage 1 and links to it instead,
	// and the ghosts stage 2 makes have keys no note of the set claims.
	ghosts := true
	for start := 0; start < len(fresh); start += s.staged.links {
		chunk := fresh[start:min(start+s.staged.links, len(fresh))]
		rows, increments, claims := linkRows(chunk, targets, all.claimant, existing)
		first := start == 0
		err := s.write(ctx, "upsert notes (stage 2: links)", func(t txn) error {
			if _, err := t.single(stmtWriteBumpVersion, p); err != nil {
				return err
			}
			if first {
				r, err := t.single(stmtWriteAnyGhost, p)
				if err != nil {
					return err
				}
				ghosts = r.Values[0].(bool)
			}
			if _, err := t.collect(stmtWriteLinkNew, with(p, "rows", rows)); err != nil {
				return err
			}
			if len(increments) > 0 {
				if _, err := t.collect(stmtWriteAddInDegrees, with(p, "increments", increments)); err != nil {
					return err
				}
			}
			if len(claims) == 0 || !ghosts {
				return nil
			}
			_, err := t.collect(stmtWriteResolveLinks, with(p, "claims", claims))
			return err
		})
		if err != nil {
			return err
		}
		// Stage 2's share of the chunks done so far, minus what it reported.
		end := start + len(chunk)
		rest := len(fresh) - halfReported
		progress(rest*end/len(fresh) - rest*start/len(fresh))
	}

	// Stage 3: notes that existed, as ordinary batches; every note of the
	// set exists by now, so their links find their targets.
	for _, chunk := range chunkNotes(old, s.staged.notes, s.staged.bytes) {
		if err := s.UpsertNotes(ctx, project, chunk); err != nil {
			return err
		}
		progress(len(chunk))
	}
	return nil
}

// existingIDs reports which of ids name notes of the project.
func (s *Store) existingIDs(ctx context.Context, project string, ids []string, chunk int) (map[string]bool, error) {
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
// distinct targets (found) and unresolved keys (dangling) with its hash;
// per older target the links it gains; the keys these notes claim.
func linkRows(chunk []core.Note, targets map[string][]string, claimant map[string]string, existing map[string]bool) (rows, increments, claims []map[string]any) {
	inLinks := map[string]int64{}
	for i := range chunk {
		n := &chunk[i]
		found, dangling := []string{}, []string{}
		for j, target := range targets[n.ID] {
			key := n.Links[j].Key
			switch {
			case target != "":
				if !slices.Contains(found, target) {
					found = append(found, target)
					if existing[target] {
						inLinks[target]++
					}
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
	for id, count := range inLinks {
		increments = append(increments, map[string]any{"id": id, "count": count})
	}
	return rows, increments, claims
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

var _ core.StagedWriter = (*Store)(nil)

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
