package neo4jstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/vaultgraph/vaultgraph/core"
)

// UpsertNotes creates or replaces notes in one transaction (see
// core.GraphWriter). Steps, each one statement unless noted:
//
//  1. bump the project's change counter (and take its lock, so writers of
//     one project never interleave);
//  2. ask which of the batch's notes and link targets exist;
//  3. in Go: resolve every link (a target that exists or is in the batch;
//     else a key that a note of the batch claims, smallest ID first; else
//     unresolved) and build each note's row with its final targets;
//  4. create the new notes, update the existing ones (two statements);
//  5. link the new notes (plain creates) and add their links to the
//     targets' in-degrees, one update per target (two statements);
//  6. adjust existing notes' links, touching only what changed;
//  7. resolve other notes' ghosts whose key the batch claims;
//  8. recount the degrees step 6 may have changed;
//  9. delete ghosts nobody links to any more.
//
// When the same ID appears twice in notes, the later one wins.
func (s *Store) UpsertNotes(ctx context.Context, project string, notes []core.Note) error {
	notes = lastByID(notes)
	if len(notes) == 0 {
		return nil
	}
	inBatch := make(map[string]bool, len(notes))
	claimant := map[string]string{} // link key -> smallest ID of the batch claiming it
	for i := range notes {
		n := &notes[i]
		if n.ID == "" {
			return fmt.Errorf("neo4jstore: upsert notes: %w", core.InvalidArgument("note %d has an empty ID", i))
		}
		inBatch[n.ID] = true
		for _, k := range n.Keys {
			if c, ok := claimant[k]; !ok || n.ID < c {
				claimant[k] = n.ID
			}
		}
	}
	// Everything whose existence matters: the batch (new or not?) and the
	// targets outside it (resolved or not?).
	probe := make([]string, 0, len(notes))
	for id := range inBatch {
		probe = append(probe, id)
	}
	for i := range notes {
		for _, l := range notes[i].Links {
			if l.Target != "" && !inBatch[l.Target] {
				probe = append(probe, l.Target)
			}
		}
	}
	probe = distinct(probe)
	claims := make([]map[string]any, 0, len(claimant))
	for k, id := range claimant {
		claims = append(claims, map[string]any{"key": k, "id": id})
	}

	err := s.write(ctx, "upsert notes", func(t txn) error {
		p := map[string]any{"project": project}
		bumped, err := t.single(stmtWriteBumpVersion, p)
		if err != nil {
			return err
		}
		rev := strconv.FormatInt(num(bumped.Values[0]), 10) // unique per write of the project
		r, err := t.single(stmtWriteExisting, with(p, "ids", probe))
		if err != nil {
			return err
		}
		existing := make(map[string]bool, len(probe))
		for _, id := range strs(r.Values[0]) {
			existing[id] = true
		}
		var newRows, oldRows []map[string]any
		recount := []string{}
		inLinks := map[string]int64{} // links new notes make, per target
		for i := range notes {
			n := &notes[i]
			row, err := noteRow(n, rev, resolveTargets(n.Links, func(id string) bool { return inBatch[id] || existing[id] }, claimant))
			if err != nil {
				return err
			}
			found := row["found"].([]string)
			if existing[n.ID] {
				oldRows = append(oldRows, row)
				recount = append(recount, n.ID)
				recount = append(recount, found...)
				continue
			}
			newRows = append(newRows, row)
			for _, target := range found {
				inLinks[target]++
			}
		}
		if len(newRows) > 0 {
			if _, err := t.collect(stmtWriteCreateNotes, with(p, "rows", newRows)); err != nil {
				return err
			}
		}
		if len(oldRows) > 0 {
			if _, err := t.collect(stmtWriteUpdateNotes, with(p, "rows", oldRows)); err != nil {
				return err
			}
		}
		if len(newRows) > 0 {
			if _, err := t.collect(stmtWriteLinkNew, with(p, "rows", newRows)); err != nil {
				return err
			}
			increments := make([]map[string]any, 0, len(inLinks))
			for id, count := range inLinks {
				increments = append(increments, map[string]any{"id": id, "count": count})
			}
			if _, err := t.collect(stmtWriteAddInDegrees, with(p, "increments", increments)); err != nil {
				return err
			}
		}
		dropped := []string{}
		if len(oldRows) > 0 {
			changed, err := t.collect(stmtWriteLinkExisting, with(p, "rows", oldRows))
			if err != nil {
				return err
			}
			for _, r := range changed {
				recount = append(recount, strs(r.Values[0])...)
				dropped = append(dropped, strs(r.Values[1])...)
			}
		}
		if len(claims) > 0 {
			if _, err := t.collect(stmtWriteResolveLinks, with(p, "claims", claims)); err != nil {
				return err
			}
		}
		if err := s.updateDegrees(t, p, recount); err != nil {
			return err
		}
		if len(dropped) == 0 {
			return nil
		}
		_, err = t.collect(stmtWriteDropOrphans, with(p, "keys", distinct(dropped)))
		return err
	})
	s.ranks.forget(project)
	return err
}

// resolveTargets returns the final target of each link: its Target when
// that note exists after the batch, else the batch's claimant of its Key,
// else "" (unresolved). A link that names a missing note thus resolves by
// key like an unresolved one, as it would when the note appeared later.
func resolveTargets(links []core.Link, exists func(id string) bool, claimant map[string]string) []string {
	targets := make([]string, len(links))
	for i, l := range links {
		switch {
		case l.Target != "" && exists(l.Target):
			targets[i] = l.Target
		default:
			targets[i] = claimant[l.Key]
		}
	}
	return targets
}

// DeleteNotes removes notes (see core.GraphWriter) in one transaction:
// links other notes hold to them become unresolved first, then the notes go
// with their relationships, then degrees are recounted and orphaned ghosts
// deleted.
func (s *Store) DeleteNotes(ctx context.Context, project string, ids []string) (int, error) {
	ids = distinct(ids)
	if len(ids) == 0 {
		return 0, nil
	}
	var deleted int
	err := s.write(ctx, "delete notes", func(t txn) error {
		p := map[string]any{"project": project, "ids": ids}
		if _, err := t.collect(stmtWriteBumpVersion, p); err != nil {
			return err
		}
		unlinked, err := t.single(stmtDeleteUnlinkIncoming, p)
		if err != nil {
			return err
		}
		gone, err := t.collect(stmtDeleteNotes, p)
		if err != nil {
			return err
		}
		deleted = len(gone)
		affected := strs(unlinked.Values[0])
		keys := []string{}
		for _, r := range gone {
			affected = append(affected, strs(r.Values[0])...)
			keys = append(keys, strs(r.Values[1])...)
		}
		if err := s.updateDegrees(t, p, affected); err != nil {
			return err
		}
		_, err = t.collect(stmtWriteDropOrphans, with(p, "keys", keys))
		return err
	})
	s.ranks.forget(project)
	if err != nil {
		return 0, err
	}
	return deleted, nil
}

func (s *Store) updateDegrees(t txn, p map[string]any, ids []string) error {
	ids = distinct(ids)
	if len(ids) == 0 {
		return nil
	}
	_, err := t.collect(stmtWriteUpdateDegrees, with(p, "ids", ids))
	return err
}

// with returns a copy of params with one more entry.
func with(params map[string]any, key string, value any) map[string]any {
	out := make(map[string]any, len(params)+1)
	for k, v := range params {
		out[k] = v
	}
	out[key] = value
	return out
}

// lastByID keeps the last note of each ID, in order of first appearance.
func lastByID(notes []core.Note) []core.Note {
	index := make(map[string]int, len(notes))
	out := make([]core.Note, 0, len(notes))
	for _, n := range notes {
		if i, ok := index[n.ID]; ok {
			out[i] = n
			continue
		}
		index[n.ID] = len(out)
		out = append(out, n)
	}
	return out
}

// distinct returns ids without repeats, in first-seen order.
func distinct(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
