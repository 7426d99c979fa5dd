package neo4jstore

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/vaultgraph/vaultgraph/core"
)

// NotesByTags returns up to limit notes carrying any or all of tags, by ID.
func (s *Neo4jStore) NotesByTags(ctx context.Context, project string, tags []string, mode core.TagMode, limit int) ([]core.Note, error) {
	notes, _, err := s.taggedNotes(ctx, project, tags, mode, limit, false)
	return notes, err
}

// TaggedViews is NotesByTags as views (core.ContextReader), the notes read
// from their heads (see noteDoc) when the catalog answers.
func (s *Neo4jStore) TaggedViews(ctx context.Context, project string, tags []string, mode core.TagMode, limit int) ([]core.NodeView, error) {
	notes, titles, err := s.taggedNotes(ctx, project, tags, mode, limit, true)
	if err != nil {
		return nil, err
	}
	views := make([]core.NodeView, len(notes))
	for i := range notes {
		views[i] = core.ViewOf(&notes[i], titles)
	}
	return views, nil
}

// taggedNotes answers NotesByTags and TaggedViews. With a current catalog
// (catalog.go) the notes are picked in process and read in one statement
// (from their heads when head is set); otherwise the (project, id) index
// is read in order and filtered by tag until limit notes match.
func (s *Neo4jStore) taggedNotes(ctx context.Context, project string, tags []string, mode core.TagMode, limit int, head bool) ([]core.Note, map[string]string, error) {
	var st statement
	switch mode {
	case core.TagModeAny:
		st = stmtTagsAny
	case core.TagModeAll:
		st = stmtTagsAll
	default:
		return nil, nil, fmt.Errorf("neo4jstore: notes by tags: %w", core.InvalidArgument("mode must be one of any, all, got %q", mode))
	}
	norm := normalizeTags(tags)
	if len(norm) == 0 {
		return []core.Note{}, map[string]string{}, nil
	}
	cat := s.catalog(project)
	for range catalogAttempts {
		if cat == nil {
			break
		}
		notes, titles, ok, err := s.taggedFromCatalog(ctx, project, cat, norm, mode, limit, head)
		if ok || err != nil {
			return notes, titles, err
		}
		if cat = s.nextCatalog(ctx, project, cat); cat == nil {
			break
		}
	}
	var notes []core.Note
	titles := map[string]string{}
	err := s.read(ctx, "notes by tags", func(t txn) error {
		records, err := t.collect(st, map[string]any{"project": project, "tags": norm, "limit": limitParam(limit)})
		if err != nil {
			return err
		}
		clear(titles)
		for _, r := range records {
			addTitles(titles, r.Values[3])
		}
		notes, err = decodeNotes(project, records)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return notes, titles, nil
}

// taggedFromCatalog answers TaggedViews from cat; ok is false when the
// database has moved on since cat was read, or a note read back no longer
// matches (a write committed during the read).
func (s *Neo4jStore) taggedFromCatalog(ctx context.Context, project string, cat *catalog, norm []string, mode core.TagMode, limit int, head bool) ([]core.Note, map[string]string, bool, error) {
	var picked []int32
	if mode == core.TagModeAny {
		picked = cat.anyTag(norm, limit)
	} else {
		picked = cat.allTags(norm, limit)
	}
	ids := make([]string, len(picked))
	for i, p := range picked {
		ids[i] = cat.ids[p]
	}
	read, ok, err := s.readPicked(ctx, project, cat, ids, head)
	if !ok || err != nil {
		return nil, nil, false, err
	}
	notes := make([]core.Note, 0, len(ids))
	for _, id := range ids {
		n, found := read.notes[id]
		if !found || !hasTags(read.tags[id], norm, mode) {
			return nil, nil, false, nil
		}
		notes = append(notes, n)
	}
	return notes, read.titles, true, nil
}

// hasTags reports whether a note's normalised tags match norm in mode, a
// tag also matching the tags nested under it (core.TagMatches).
func hasTags(noteTags, norm []string, mode core.TagMode) bool {
	for _, t := range norm {
		in := slices.ContainsFunc(noteTags, func(nt string) bool { return core.TagMatches(nt, t) })
		if mode == core.TagModeAny && in {
			return true
		}
		if mode == core.TagModeAll && !in {
			return false
		}
	}
	return mode == core.TagModeAll
}

// RandomNote returns the candidate at index pick(n) in ID order (see
// randomNote).
func (s *Neo4jStore) RandomNote(ctx context.Context, project string, tags []string, pick func(n int) int) (*core.Note, error) {
	note, _, err := s.randomNote(ctx, project, tags, pick)
	return note, err
}

// RandomView is RandomNote as a view (core.ContextReader).
func (s *Neo4jStore) RandomView(ctx context.Context, project string, tags []string, pick func(n int) int) (*core.NodeView, error) {
	note, titles, err := s.randomNote(ctx, project, tags, pick)
	if note == nil || err != nil {
		return nil, err
	}
	v := core.ViewOf(note, titles)
	return &v, nil
}

// randomNote is RandomNote with the titles of the note's link
// targets. With a current catalog (catalog.go) the candidates are counted
// and picked in process and the note read in one statement; otherwise it
// counts the candidates, asks pick for an index and reads the candidate at
// that index in ID order from the (project, id) index, O(notes). The count
// and the read are separate transactions so that pick runs exactly once per
// count even when a transaction is retried. A note deleted in between can
// leave nothing at the picked index; then it counts and picks again (up to
// maxTornReads times), since (nil, nil) means "no candidate", which a
// concurrent delete of one note does not make true (found by the load
// test, integration/e2e/load_test.go). pick is likewise called again when
// a catalog pick turns out stale.
func (s *Neo4jStore) randomNote(ctx context.Context, project string, tags []string, pick func(n int) int) (*core.Note, map[string]string, error) {
	norm := normalizeTags(tags)
	cat := s.catalog(project)
	for range catalogAttempts {
		if cat == nil {
			break
		}
		note, titles, ok, err := s.randomFromCatalog(ctx, project, cat, norm, pick)
		if ok || err != nil {
			return note, titles, err
		}
		if cat = s.nextCatalog(ctx, project, cat); cat == nil {
			break
		}
	}
	count, nth := stmtRandomCount, stmtRandomNth
	params := map[string]any{"project": project, "files": fileNodeExtensions}
	if len(norm) > 0 {
		count, nth = stmtRandomCountTagged, stmtRandomNthTagged
		params["tags"] = norm
	}
	for range maxTornReads {
		var n int64
		err := s.read(ctx, "random note", func(t txn) error {
			r, err := t.single(count, params)
			if err != nil {
				return err
			}
			n = num(r.Values[0])
			return nil
		})
		if err != nil || n == 0 {
			return nil, nil, err
		}
		k := pick(int(n))
		if k < 0 || int64(k) >= n {
			return nil, nil, fmt.Errorf("neo4jstore: random note: pick(%d) returned %d, out of range", n, k)
		}
		var note *core.Note
		titles := map[string]string{}
		err = s.read(ctx, "random note", func(t txn) error {
			note = nil
			r, err := t.single(nth, with(params, "skip", int64(k)))
			if err != nil || r == nil {
				return err
			}
			got, err := decodeNote(project, r.Values[0], r.Values[1], r.Values[2])
			if errors.Is(err, errVanished) {
				return nil
			}
			clear(titles)
			addTitles(titles, r.Values[3])
			note = &got
			return err
		})
		if err != nil || note != nil {
			return note, titles, err
		}
	}
	return nil, nil, nil
}

// fileNodeExtensions is the $files of the random statements: the IDs
// they leave out (attachments and canvases, core.IsFileNode).
var fileNodeExtensions = core.FileNodeExtensions()

// randomFromCatalog answers randomNote from cat; ok is false when
// the database has moved on since cat was read.
func (s *Neo4jStore) randomFromCatalog(ctx context.Context, project string, cat *catalog, norm []string, pick func(n int) int) (*core.Note, map[string]string, bool, error) {
	n := len(cat.ids) - len(cat.files)
	var candidates []int32
	if len(norm) > 0 {
		candidates = slices.DeleteFunc(slices.Clone(cat.anyTag(norm, 0)), func(p int32) bool { return core.IsFileNode(cat.ids[p]) })
		n = len(candidates)
	}
	if n == 0 {
		// Nothing to pick, if the catalog is current: ask for no note, to
		// read the counter.
		_, ok, err := s.readPicked(ctx, project, cat, []string{}, false)
		return nil, nil, ok, err
	}
	k := pick(n)
	if k < 0 || k >= n {
		return nil, nil, false, fmt.Errorf("neo4jstore: random note: pick(%d) returned %d, out of range", n, k)
	}
	id := ""
	if candidates != nil {
		id = cat.ids[candidates[k]]
	} else {
		id = cat.ids[cat.nthNote(k)]
	}
	read, ok, err := s.readPicked(ctx, project, cat, []string{id}, false)
	if !ok || err != nil {
		return nil, nil, false, err
	}
	note, found := read.notes[id]
	if !found || (len(norm) > 0 && !hasTags(read.tags[id], norm, core.TagModeAny)) {
		return nil, nil, false, nil
	}
	return &note, read.titles, true, nil
}
