package neo4jstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/vaultgraph/vaultgraph/core"
)

// UpsertNotes creates or replaces notes in one transaction (see
// core.GraphWriter). Steps, one statement each unless noted:
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
func (s *Neo4jStore) UpsertNotes(ctx context.Context, project string, notes []core.Note) error {
	b, err := newUpsertBatch(lastByID(notes))
	if err != nil || b == nil {
		return err
	}
	err = s.write(ctx, "upsert notes", func(t txn) error {
		return b.write(t, map[string]any{"project": project, "changed": changedIDs(idsOf(b.notes)), "writer": s.holder})
	})
	s.rankWrote(project)
	return err
}

// upsertBatch is what UpsertNotes knows before it talks to Neo4j.
type upsertBatch struct {
	notes    []core.Note
	inBatch  map[string]bool
	claimant map[string]string // link key -> smallest ID of the batch claiming it
	probe    []string          // IDs whose existence matters: the batch and its link targets
	claims   []map[string]any  // claimant as statement rows
}

// newUpsertBatch prepares notes (distinct IDs); nil when there are none.
func newUpsertBatch(notes []core.Note) (*upsertBatch, error) {
	if len(notes) == 0 {
		return nil, nil
	}
	b := &upsertBatch{notes: notes, inBatch: make(map[string]bool, len(notes)), claimant: map[string]string{}}
	for i := range notes {
		n := &notes[i]
		if n.ID == "" {
			return nil, fmt.Errorf("neo4jstore: upsert notes: %w", core.InvalidArgument("note %d has an empty ID", i))
		}
		b.inBatch[n.ID] = true
		b.probe = append(b.probe, n.ID)
		for _, k := range n.Keys {
			if c, ok := b.claimant[k]; !ok || n.ID < c {
				b.claimant[k] = n.ID
			}
		}
	}
	for i := range notes {
		for _, l := range notes[i].Links {
			if l.Target != "" && !b.inBatch[l.Target] {
				b.probe = append(b.probe, l.Target)
			}
		}
	}
	b.probe = distinct(b.probe)
	for k, id := range b.claimant {
		b.claims = append(b.claims, map[string]any{"key": k, "id": id})
	}
	return b, nil
}

// write runs the steps of UpsertNotes inside transaction t. It keeps no
// state between calls, so a retried transaction starts afresh.
func (b *upsertBatch) write(t txn, p map[string]any) error {
	bumped, err := t.single(stmtWriteBumpVersion, p)
	if err != nil {
		return err
	}
	rev := strconv.FormatInt(num(bumped.Values[0]), 10) // unique per write of the project
	r, err := t.single(stmtWriteExisting, with(p, "ids", b.probe))
	if err != nil {
		return err
	}
	existing := make(map[string]bool, len(b.probe))
	for _, id := range strs(r.Values[0]) {
		existing[id] = true
	}
	rows, err := b.rows(rev, existing)
	if err != nil {
		return err
	}
	if len(rows.created) > 0 {
		if _, err := t.collect(stmtWriteCreateNotes, with(p, "rows", rows.created)); err != nil {
			return err
		}
	}
	if len(rows.updated) > 0 {
		if _, err := t.collect(stmtWriteUpdateNotes, with(p, "rows", rows.updated)); err != nil {
			return err
		}
	}
	if len(rows.created) > 0 {
		if _, err := t.collect(stmtWriteLinkNew, with(with(p, "rows", linkOnly(rows.created)), "rev", nil)); err != nil {
			return err
		}
		if _, err := t.collect(stmtWriteAddInDegrees, with(p, "increments", rows.increments)); err != nil {
			return err
		}
	}
	recount, dropped := rows.recount, []string{}
	if len(rows.updated) > 0 {
		changed, err := t.collect(stmtWriteLinkExisting, with(p, "rows", rows.updated))
		if err != nil {
			return err
		}
		for _, r := range changed {
			recount = append(recount, strs(r.Values[0])...)
			dropped = append(dropped, strs(r.Values[1])...)
		}
	}
	if len(b.claims) > 0 {
		if _, err := t.collect(stmtWriteResolveLinks, with(p, "claims", b.claims)); err != nil {
			return err
		}
	}
	if err := updateDegrees(t, p, recount); err != nil {
		return err
	}
	return dropOrphans(t, p, dropped)
}

// upsertRows are the statement rows of a batch, split by whether the note
// existed before.
type upsertRows struct {
	created, updated []map[string]any
	increments       []map[string]any // {id, count}: links the created notes make to each target
	recount          []string         // notes whose degrees the updates may change
}

func (b *upsertBatch) rows(rev string, existing map[string]bool) (upsertRows, error) {
	var out upsertRows
	exists := func(id string) bool { return b.inBatch[id] || existing[id] }
	inLinks := map[string]int64{}
	for i := range b.notes {
		n := &b.notes[i]
		row, err := noteRow(n, rev, resolveTargets(n.Links, exists, b.claimant))
		if err != nil {
			return upsertRows{}, err
		}
		found := row["found"].([]string)
		if existing[n.ID] {
			out.updated = append(out.updated, row)
			out.recount = append(out.recount, n.ID)
			out.recount = append(out.recount, found...)
			continue
		}
		out.created = append(out.created, row)
		for _, target := range found {
			inLinks[target]++
		}
	}
	for id, count := range inLinks {
		out.increments = append(out.increments, map[string]any{"id": id, "count": count})
	}
	return out, nil
}

// resolveTargets returns the final target of each link: its Target when
// that note exists after the batch, else the batch's claimant of its Key,
// else "" (unresolved). A link that names a missing note thus resolves by
// key like an unresolved one, as it would when the note appeared later.
func resolveTargets(links []core.Link, exists func(id string) bool, claimant map[string]string) []string {
	targets := make([]string, len(links))
	for i, l := range links {
		if l.Target != "" && exists(l.Target) {
			targets[i] = l.Target
		} else {
			targets[i] = claimant[l.Key] // "" when the batch claims no such key
		}
	}
	return targets
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

// linkOnly keeps of note rows what write_link_new reads, so the notes'
// text crosses the wire once per write, not twice.
func linkOnly(rows []map[string]any) []map[string]any {
	out := make([]map[string]any, len(rows))
	for i, r := range rows {
		out[i] = map[string]any{"id": r["id"], "hash": r["hash"], "found": r["found"], "dangling": r["dangling"]}
	}
	return out
}
