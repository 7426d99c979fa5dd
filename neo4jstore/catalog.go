package neo4jstore

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// A catalog is this process's copy of a project's note IDs in ID order and,
// for each normalised tag, the positions of the notes carrying it, read at
// one value of the project's change counter (GraphMeta.version, which every
// write bumps in its own transaction). random_node and search_by_tags pick
// their notes from it instead of asking Neo4j: Neo4j has no index on list
// elements, so "notes carrying a tag" scanned every note's tag list, and
// "the k-th note in ID order" skipped k index entries (22 ms for
// random_node and 124 ms for a tagged one at 100k notes, 8-11 ms for
// search_by_tags). The picked notes are read in one statement that also
// returns the counter; when the counter has moved since the catalog was
// read, the answer is thrown away, the call takes the old statements, and
// a new catalog loads in the background. So an answer is always one the
// database gave at that moment; the catalog only saves the search.
//
// Link titles: a statement reads the titles of a note's links by walking
// its relationships (up to 300 per note here), which was up to half of a
// get_node at depth 1. With a current catalog the statements leave the
// titles out and return the counter instead.
//
// Cost: about 200 bytes per note (100k notes: ~20 MB), and one read of
// every note's ID, title and tags after a write, at most one per project
// at a time and spaced by catalogReload and catalogLoadShare.
type catalog struct {
	version int64
	ids     []string           // every note ID, ascending
	titles  map[string]string  // note ID → title
	tags    map[string][]int32 // normalised tag → ascending positions in ids
}

// addTitles adds the titles of every existing link target of notes to
// titles: what the title subqueries of the statements give, without them.
func (c *catalog) addTitles(titles map[string]string, notes ...core.Note) {
	for i := range notes {
		for _, l := range notes[i].Links {
			if title, ok := c.titles[l.Target]; ok && l.Target != "" {
				titles[l.Target] = title
			}
		}
	}
}

// catalogReload is the least time between the starts of two loads of a
// project's catalog, and catalogLoadShare the most of the time a load may
// take up: under a stream of writes (a sync worker in another process) the
// catalog goes stale after every write, and reloading at once would keep
// Neo4j reading every note (0.75 s at 100k notes). The calls answer the
// old way meanwhile.
const (
	catalogReload    = time.Second
	catalogLoadShare = 10 // a load of d waits 10·d after the previous start
)

type catalogs struct {
	mu      sync.Mutex
	entries map[string]*catalogEntry
}

type catalogEntry struct {
	cat      *catalog // nil until the first load; stale ones are dropped
	loading  bool
	loadedAt time.Time     // start of the last load
	took     time.Duration // how long the last load took
	loads    int
}

// catalog returns the project's catalog, nil when there is none yet, and
// starts a load in the background when there is none and none is running.
func (s *Neo4jStore) catalog(project string) *catalog {
	s.catalogs.mu.Lock()
	defer s.catalogs.mu.Unlock()
	if s.catalogs.entries == nil {
		s.catalogs.entries = map[string]*catalogEntry{}
	}
	e := s.catalogs.entries[project]
	if e == nil {
		e = &catalogEntry{}
		s.catalogs.entries[project] = e
	}
	if e.cat == nil && !e.loading && time.Since(e.loadedAt) >= max(catalogReload, catalogLoadShare*e.took) {
		e.loading, e.loadedAt = true, time.Now()
		s.background.Add(1)
		go func() {
			defer s.background.Done()
			start := time.Now()
			cat, err := s.loadCatalog(s.life, project)
			s.catalogs.mu.Lock()
			defer s.catalogs.mu.Unlock()
			e.loading, e.took = false, time.Since(start)
			if err != nil {
				e.took = max(e.took, 3*time.Second) // Neo4j down: try again in 30 s, not every second
				if s.life.Err() == nil {
					s.log.Warn("neo4j note catalog: load failed; the graph tools read without it meanwhile", "project", project, "err", err)
				}
				return
			}
			e.cat = cat
			e.loads++
			level := slog.LevelDebug // reloads follow writes: not news
			if e.loads == 1 {
				level = slog.LevelInfo
			}
			s.log.Log(s.life, level, "neo4j note catalog loaded", "project", project, "notes", len(cat.ids), "tags", len(cat.tags), "seconds", time.Since(start).Seconds())
		}()
	}
	return e.cat
}

// staleCatalog drops cat, which a read found older than the database.
func (s *Neo4jStore) staleCatalog(project string, cat *catalog) {
	s.catalogs.mu.Lock()
	defer s.catalogs.mu.Unlock()
	if e := s.catalogs.entries[project]; e != nil && e.cat == cat {
		e.cat = nil
	}
}

// loadCatalog reads every note's ID and tags in one statement.
func (s *Neo4jStore) loadCatalog(ctx context.Context, project string) (*catalog, error) {
	cat := &catalog{version: -1, titles: map[string]string{}, tags: map[string][]int32{}}
	err := s.read(ctx, "load note catalog", func(t txn) error {
		records, err := t.collect(stmtCatalogLoad, map[string]any{"project": project})
		if err != nil {
			return err
		}
		cat.ids = make([]string, len(records))
		cat.titles = make(map[string]string, len(records))
		clear(cat.tags)
		for i, r := range records {
			cat.version = num(r.Values[0]) // the same on every row
			cat.ids[i] = str(r.Values[1])
			cat.titles[cat.ids[i]] = str(r.Values[3])
			for _, tag := range strs(r.Values[2]) {
				cat.tags[tag] = append(cat.tags[tag], int32(i))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return cat, nil
}

// tagLists returns the position lists of the notes carrying the
// normalised tag t or a tag nested under it (core.TagMatches).
func (c *catalog) tagLists(t string) [][]int32 {
	var lists [][]int32
	if l := c.tags[t]; len(l) > 0 {
		lists = append(lists, l)
	}
	for name, l := range c.tags {
		if name != t && len(l) > 0 && core.TagMatches(name, t) {
			lists = append(lists, l)
		}
	}
	return lists
}

// anyTag returns the positions of the notes carrying any of norm
// (normalised tags) or a tag nested under one, ascending, at most limit
// (<= 0: all).
func (c *catalog) anyTag(norm []string, limit int) []int32 {
	lists := make([][]int32, 0, len(norm))
	for _, t := range norm {
		lists = append(lists, c.tagLists(t)...)
	}
	return core.MergeSorted(lists, cmp.Compare[int32], limit)
}

// allTags returns the positions of the notes carrying every tag of norm
// (or a tag nested under it), ascending, at most limit (<= 0: all).
func (c *catalog) allTags(norm []string, limit int) []int32 {
	lists := make([][]int32, len(norm))
	for i, t := range norm {
		found := c.tagLists(t)
		switch len(found) {
		case 0:
			return nil
		case 1:
			lists[i] = found[0]
		default:
			lists[i] = core.MergeSorted(found, cmp.Compare[int32], 0)
		}
	}
	slices.SortFunc(lists, func(a, b []int32) int { return len(a) - len(b) })
	var out []int32
	for _, pos := range lists[0] {
		if limit > 0 && len(out) >= limit {
			break
		}
		inAll := true
		for _, l := range lists[1:] {
			if _, ok := slices.BinarySearch(l, pos); !ok {
				inAll = false
				break
			}
		}
		if inAll {
			out = append(out, pos)
		}
	}
	return out
}

// catalogRead is a catalog pick read back from the database.
type catalogRead struct {
	notes  map[string]core.Note
	tags   map[string][]string // normalised tags by note ID
	titles map[string]string   // of the notes' link targets, from the catalog
}

// readPicked reads the notes with ids (only what a view shows, with head)
// and the change counter in one statement. ok is false when the counter
// is not cat's: the caller must answer another way (and the catalog is
// dropped, to load again).
func (s *Neo4jStore) readPicked(ctx context.Context, project string, cat *catalog, ids []string, head bool) (*catalogRead, bool, error) {
	var out *catalogRead
	var version int64
	err := s.read(ctx, "read catalog pick", func(t txn) error {
		r, err := t.single(stmtCatalogNotes, map[string]any{"project": project, "ids": ids, "head": head})
		if err != nil || r == nil {
			return err
		}
		version = num(r.Values[0])
		out = &catalogRead{notes: map[string]core.Note{}, tags: map[string][]string{}, titles: map[string]string{}}
		rows, _ := r.Values[1].([]any)
		for _, v := range rows {
			row, _ := v.([]any)
			if len(row) != 4 {
				continue
			}
			decode := decodeNote
			if head {
				decode = decodeHead
			}
			n, err := decode(project, row[0], row[1], row[2])
			if err == errVanished {
				continue
			}
			if err != nil {
				return err
			}
			out.notes[n.ID] = n
			out.tags[n.ID] = strs(row[3])
			cat.addTitles(out.titles, n)
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	if out == nil || version != cat.version {
		s.staleCatalog(project, cat)
		return nil, false, nil
	}
	return out, true, nil
}
