package neo4jstore

import (
	"cmp"
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

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
// read, the catalog catches up and the pick is made again. So an answer is
// always one the database gave at that moment; the catalog only saves the
// search.
//
// Link titles: a statement reads the titles of a note's links by walking
// its relationships (up to 300 per note here), which was up to half of a
// get_node at depth 1. With a current catalog the statements leave the
// titles out and return the counter instead.
//
// Links: the catalog also holds every LINKS_TO relationship (links.go),
// from which find_path answers in process once one round trip has found
// the counter at the catalog's version (ShortestPath).
//
// Following writes: every write transaction records, beside its bump of
// the counter, the IDs of the notes whose existence, title, tags or links
// it may change ((:GraphChange {project, version, ids}),
// write_bump_version); every link a write adds or removes has an end among
// them, except the links a staged write draws (see catchUpCatalog). A
// catalog that finds the counter moved reads the changes after its own
// version and then those notes' rows (catalog_changes, catalog_rows: two
// index seeks), and becomes a new catalog at the newer version; this
// process's writes and every other process's are followed alike. A full
// load happens only at the first use, when the log no longer reaches back
// to the catalog's version (the last 256 writes are kept), when
// a write changed more notes than it lists (maxChangeIDs), or when the
// changes add up to more than catalogMaxDelta notes.
//
// Cost: about 200 bytes per note (100k notes: ~20 MB) and 16 bytes per
// link (691k links: ~11 MB); a catch-up costs two round trips and
// O(notes + links) in process (the position lists are rebuilt), a few
// milliseconds at 100k.
type catalog struct {
	version int64
	ids     []string           // every note ID, ascending
	titles  []string           // titles[i] is the title of ids[i]
	tags    map[string][]int32 // normalised tag → ascending positions in ids
	files   []int32            // ascending positions in ids of attachments and canvases (core.IsFileNode)

	// links are the project's LINKS_TO relationships at version, nil when
	// not known (the catalog was loaded while a staged write was drawing
	// links). linksPending: a staged write was drawing links when the
	// catalog caught up, so links may lack some of them (its link
	// transactions list no notes); linksDirty are the notes whose links to
	// read again once no staged write is pending (see catchUpCatalog).
	// Only links known and not pending answer reads (pathLinks).
	links        *links
	linksPending bool
	linksDirty   []string
	linksLater   bool // loaded while a staged write was drawing links: none until a load after it
}

// pathLinks returns the catalog's links when they are complete at its
// version, else nil.
func (c *catalog) pathLinks() *links {
	if c.linksPending {
		return nil
	}
	return c.links
}

// nthNote returns the position in ids of the k-th note that is not an
// attachment or a canvas: k stepped over the files at or before it.
func (c *catalog) nthNote(k int) int {
	for _, f := range c.files {
		if int(f) > k {
			break
		}
		k++
	}
	return k
}

// title returns the title of note id, if the catalog holds it.
func (c *catalog) title(id string) (string, bool) {
	i, ok := slices.BinarySearch(c.ids, id)
	if !ok {
		return "", false
	}
	return c.titles[i], true
}

// addTitles adds the titles of every existing link target of notes to
// titles: what the title subqueries of the statements give, without them.
func (c *catalog) addTitles(titles map[string]string, notes ...core.Note) {
	for i := range notes {
		for _, l := range notes[i].Links {
			if l.Target == "" {
				continue
			}
			if title, ok := c.title(l.Target); ok {
				titles[l.Target] = title
			}
		}
	}
}

// catalogRow is one note's entry in a catalog: with in and out, the IDs
// of the notes linking to it and of those it links to.
type catalogRow struct {
	title   string
	tags    []string
	out, in []string
}

// apply returns a new catalog at version: c with the notes of changed
// replaced by their rows, or removed where the row is nil (the note is
// gone). c is not modified: readers holding it keep a consistent copy.
func (c *catalog) apply(version int64, changed map[string]*catalogRow) *catalog {
	keys := slices.Sorted(maps.Keys(changed))
	next := &catalog{
		version: version,
		ids:     make([]string, 0, len(c.ids)+len(keys)),
		titles:  make([]string, 0, len(c.ids)+len(keys)),
		tags:    make(map[string][]int32, len(c.tags)),
	}
	moved := make([]int32, len(c.ids)) // old position → new, -1: changed or gone
	added := map[string][]int32{}      // tag → new positions of changed notes
	var newFiles []int32               // new positions of changed attachments and canvases
	i, k := 0, 0
	for i < len(c.ids) || k < len(keys) {
		switch {
		case k == len(keys) || (i < len(c.ids) && c.ids[i] < keys[k]):
			moved[i] = int32(len(next.ids))
			next.ids = append(next.ids, c.ids[i])
			next.titles = append(next.titles, c.titles[i])
			i++
		default:
			id := keys[k]
			if i < len(c.ids) && c.ids[i] == id {
				moved[i] = -1
				i++
			}
			if row := changed[id]; row != nil {
				pos := int32(len(next.ids))
				if core.IsFileNode(id) {
					newFiles = append(newFiles, pos)
				}
				next.ids = append(next.ids, id)
				next.titles = append(next.titles, row.title)
				for _, t := range distinctTags(row.tags) {
					added[t] = append(added[t], pos)
				}
			}
			k++
		}
	}
	for t, list := range c.tags {
		out := make([]int32, 0, len(list))
		for _, p := range list {
			if q := moved[p]; q >= 0 {
				out = append(out, q)
			}
		}
		if extra := added[t]; len(extra) > 0 {
			out = append(out, extra...)
			slices.Sort(out)
			delete(added, t)
		}
		if len(out) > 0 {
			next.tags[t] = out
		}
	}
	for t, list := range added {
		next.tags[t] = list
	}
	if c.links != nil {
		next.links = c.links.apply(next.ids, moved, changed)
	}
	next.linksPending, next.linksDirty, next.linksLater = c.linksPending, c.linksDirty, c.linksLater
	for _, p := range c.files {
		if q := moved[p]; q >= 0 {
			next.files = append(next.files, q)
		}
	}
	if len(newFiles) > 0 {
		next.files = append(next.files, newFiles...)
		slices.Sort(next.files)
	}
	return next
}

// distinctTags returns tags without repeats (a note's normalised tags may
// repeat when two spellings normalise alike).
func distinctTags(tags []string) []string {
	if len(tags) < 2 {
		return tags
	}
	out := slices.Clone(tags)
	slices.Sort(out)
	return slices.Compact(out)
}

// catalogReload is the least time between the starts of two full loads of
// a project's catalog, and catalogLoadShare the most of the time a load may
// take up: under a stream of writes that the change log cannot describe
// (a first sync in another process), reloading at once would keep Neo4j
// reading every note (0.75 s at 100k notes). The calls answer the old way
// meanwhile.
const (
	catalogReload    = time.Second
	catalogLoadShare = 10 // a load of d waits 10·d after the previous start
)

// catalogMaxDelta bounds the notes one catch-up reads; beyond it the
// catalog loads again, and catalogMaxChanges bounds the writes it reads
// (below the 256 the log keeps; write_bump_version).
const (
	catalogMaxDelta   = 5000
	catalogMaxChanges = 200
)

// maxChangeIDs bounds the note IDs one write lists in its GraphChange;
// a larger write lists none (null), and catalogs reload after it.
const maxChangeIDs = 5000

// changedIDs is the $changed parameter of write_bump_version for a write
// that may change the existence, title or tags of the notes ids.
func changedIDs(ids []string) any {
	if len(ids) > maxChangeIDs {
		return nil
	}
	if ids == nil {
		return []string{}
	}
	return ids
}

// idsOf returns the IDs of notes.
func idsOf(notes []core.Note) []string {
	out := make([]string, len(notes))
	for i := range notes {
		out[i] = notes[i].ID
	}
	return out
}

type catalogs struct {
	mu      sync.Mutex
	entries map[string]*catalogEntry
}

type catalogEntry struct {
	cat       *catalog // nil until the first load, and after a catch-up failed
	loading   bool
	loadedAt  time.Time     // start of the last load
	took      time.Duration // how long the last load took
	loads     int
	catchUps  int
	advancing bool       // a background catch-up is running
	advance   sync.Mutex // one catch-up at a time
}

func (s *Neo4jStore) catalogEntry(project string) *catalogEntry {
	s.catalogs.mu.Lock()
	defer s.catalogs.mu.Unlock()
	return s.catalogEntryLocked(project)
}

func (s *Neo4jStore) catalogEntryLocked(project string) *catalogEntry {
	if s.catalogs.entries == nil {
		s.catalogs.entries = map[string]*catalogEntry{}
	}
	e := s.catalogs.entries[project]
	if e == nil {
		e = &catalogEntry{}
		s.catalogs.entries[project] = e
	}
	return e
}

// catalog returns the project's catalog, nil when there is none yet, and
// starts a load in the background when there is none and none is running.
// The catalog may be behind the database: callers compare its version with
// the counter their statement read, and call staleCatalog or
// advanceCatalog when it differs.
func (s *Neo4jStore) catalog(project string) *catalog {
	s.catalogs.mu.Lock()
	defer s.catalogs.mu.Unlock()
	e := s.catalogEntryLocked(project)
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
			if e.cat == nil || e.cat.version < cat.version {
				e.cat = cat
			}
			e.loads++
			level := slog.LevelDebug // reloads follow large writes: not news
			if e.loads == 1 {
				level = slog.LevelInfo
			}
			s.log.Log(s.life, level, "neo4j note catalog loaded", "project", project, "notes", len(cat.ids), "tags", len(cat.tags), "seconds", time.Since(start).Seconds())
			s.observer().Reloaded("catalog", time.Since(start))
		}()
	}
	return e.cat
}

// staleCatalog is told that a read found the database at another counter
// than cat: cat catches up in the background (the caller answers without
// it this once).
func (s *Neo4jStore) staleCatalog(project string, cat *catalog) {
	e := s.catalogEntry(project)
	s.catalogs.mu.Lock()
	start := e.cat == cat && !e.advancing
	if start {
		e.advancing = true
	}
	s.catalogs.mu.Unlock()
	if !start {
		return
	}
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		s.advanceCatalog(s.life, project, cat)
		s.catalogs.mu.Lock()
		e.advancing = false
		s.catalogs.mu.Unlock()
	}()
}

// advanceCatalog brings cat, which a read found behind the database, up to
// the database's counter and returns the project's catalog afterwards: the
// caught-up one, another caller's, or nil when a full load is needed
// (started by the next catalog call).
func (s *Neo4jStore) advanceCatalog(ctx context.Context, project string, cat *catalog) *catalog {
	e := s.catalogEntry(project)
	e.advance.Lock()
	defer e.advance.Unlock()
	s.catalogs.mu.Lock()
	cur := e.cat
	s.catalogs.mu.Unlock()
	if cur != cat {
		return cur // another caller advanced it, or it was dropped
	}
	start := time.Now()
	next, err := s.catchUpCatalog(ctx, project, cat)
	s.catalogs.mu.Lock()
	defer s.catalogs.mu.Unlock()
	if err != nil {
		// Neo4j failing: keep the catalog, whose answers are checked anyway.
		s.log.Debug("neo4j note catalog: catch-up failed", "project", project, "err", err)
		return e.cat
	}
	if e.cat == cat {
		e.cat = next // nil: load again
		e.catchUps++
	}
	if next != nil {
		s.log.Debug("neo4j note catalog caught up", "project", project, "from", cat.version, "to", next.version,
			"ms", float64(time.Since(start).Microseconds())/1000)
	} else {
		s.log.Debug("neo4j note catalog: the change log does not reach back; loading again", "project", project, "version", cat.version)
	}
	return e.cat
}

// catchUpCatalog reads the changes after cat's version and returns cat
// with them applied; nil (and no error) when a full load is needed.
func (s *Neo4jStore) catchUpCatalog(ctx context.Context, project string, cat *catalog) (*catalog, error) {
	var (
		version int64
		ids     []string
		whole   bool
		count   int
		pending int64
	)
	err := s.read(ctx, "note catalog changes", func(t txn) error {
		r, err := t.single(stmtCatalogChanges, map[string]any{
			"project": project, "since": cat.version, "max_changes": int64(catalogMaxChanges),
		})
		if err != nil || r == nil {
			return err
		}
		version, pending = num(r.Values[0]), num(r.Values[2])
		changes, _ := r.Values[1].([]any)
		count, whole, ids = len(changes), false, ids[:0]
		for _, c := range changes {
			m, _ := c.(map[string]any)
			if m == nil || m["ids"] == nil {
				whole = true
				continue
			}
			ids = append(ids, strs(m["ids"])...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	switch {
	case version == cat.version:
		return cat, nil
	case version < cat.version, // another life of the counter (a wiped project)
		version-cat.version > catalogMaxChanges,
		int64(count) != version-cat.version, // the log no longer reaches back
		whole:
		return nil, nil
	}
	// Links: a staged write draws them in transactions that list no notes,
	// after one that lists the new notes and counts the write as pending.
	// While any is pending the notes listed are kept (linksDirty) and read
	// again once none is; the links are not used meanwhile.
	var dirty []string
	switch {
	case cat.linksLater && pending == 0:
		return nil, nil // loaded while links were being drawn: load again
	case cat.links != nil && pending > 0:
		dirty = distinct(append(slices.Clone(cat.linksDirty), ids...))
	case cat.links != nil:
		ids = append(ids, cat.linksDirty...)
	}
	ids = distinct(ids)
	if len(ids) > catalogMaxDelta || len(dirty) > catalogMaxDelta {
		return nil, nil
	}
	changed := make(map[string]*catalogRow, len(ids))
	for _, id := range ids {
		changed[id] = nil
	}
	if len(ids) > 0 {
		// Every write up to version whole before its notes are read
		// (project_settled): its bump and change entry can be seen while
		// the rest of it is still being applied.
		if _, _, err := s.settledVersion(ctx, project); err != nil {
			return nil, err
		}
		err = s.read(ctx, "note catalog rows", func(t txn) error {
			records, err := t.collect(stmtCatalogRows, map[string]any{"project": project, "ids": ids})
			if err != nil {
				return err
			}
			for _, id := range ids {
				changed[id] = nil
			}
			for _, r := range records {
				changed[str(r.Values[0])] = &catalogRow{title: str(r.Values[1]), tags: strs(r.Values[2]),
					out: strs(r.Values[3]), in: strs(r.Values[4])}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	next := cat.apply(version, changed)
	next.linksPending, next.linksDirty = pending > 0, dirty
	return next, nil
}

// loadCatalog reads the settled counter (project_settled: every write up
// to it whole), then every note's ID, title and tags in index order. The
// counter comes first: a write committing between the two makes the rows
// newer than their label, which the next catch-up reads again, whereas the
// other order could label old rows as current.
func (s *Neo4jStore) loadCatalog(ctx context.Context, project string) (*catalog, error) {
	cat := &catalog{tags: map[string][]int32{}}
	version, pending, err := s.settledVersion(ctx, project)
	if err != nil {
		return nil, err
	}
	cat.version = version
	err = s.read(ctx, "load note catalog", func(t txn) error {
		records, err := t.collect(stmtCatalogLoad, map[string]any{"project": project})
		if err != nil {
			return err
		}
		// The index's order is Neo4j's string order; the catalog's (binary
		// searches, catch-ups, path tie-breaks) is Go's, which differs for
		// some characters outside the BMP.
		if !slices.IsSortedFunc(records, func(a, b *neo4j.Record) int { return cmp.Compare(str(a.Values[0]), str(b.Values[0])) }) {
			slices.SortFunc(records, func(a, b *neo4j.Record) int { return cmp.Compare(str(a.Values[0]), str(b.Values[0])) })
		}
		cat.ids = make([]string, len(records))
		cat.titles = make([]string, len(records))
		clear(cat.tags)
		cat.files = cat.files[:0]
		for i, r := range records {
			cat.ids[i] = str(r.Values[0])
			if core.IsFileNode(cat.ids[i]) {
				cat.files = append(cat.files, int32(i))
			}
			cat.titles[i] = str(r.Values[2])
			for _, tag := range distinctTags(strs(r.Values[1])) {
				cat.tags[tag] = append(cat.tags[tag], int32(i))
			}
		}
		cat.linksLater = pending > 0
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !cat.linksLater {
		// Read after the counter like the rows: a catch-up reads again
		// whatever a write changed meanwhile. A failure leaves the catalog
		// without links (find_path asks Neo4j).
		if cat.links, err = s.loadLinks(ctx, project, cat.ids); err != nil {
			s.log.Warn("neo4j note catalog: loading the links failed; find_path reads without them", "project", project, "err", err)
		}
	}
	return cat, nil
}

// catalogLinksPage is how many notes' links one read of a catalog's full
// load takes (catalog_links; Neo4jStore.linksPage, which tests shrink). At
// 100k notes on the busy 2-core machine (load 33) the rows alone took
// 19-26 s of the 30 s a call may take, and the rows with every note's
// links in one statement 33-74 s.
const catalogLinksPage = 5000

// loadLinks reads the links of every note in pages and returns them as
// positions in ids (links to notes not in ids are left out).
func (s *Neo4jStore) loadLinks(ctx context.Context, project string, ids []string) (*links, error) {
	var src, dst []int32
	after := ""
	for {
		var n int
		var last string
		err := s.read(ctx, "load note catalog links", func(t txn) error {
			records, err := t.collect(stmtCatalogLinks, map[string]any{"project": project, "after": after, "page": int64(s.linksPage)})
			if err != nil {
				return err
			}
			n = len(records)
			for _, r := range records {
				last = str(r.Values[0])
				i, ok := slices.BinarySearch(ids, last)
				if !ok {
					continue
				}
				for _, id := range strs(r.Values[1]) {
					if j, ok := slices.BinarySearch(ids, id); ok {
						src, dst = append(src, int32(i)), append(dst, int32(j))
					}
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if n < s.linksPage {
			return buildLinks(len(ids), src, dst), nil
		}
		after = last
	}
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

// catalogAttempts bounds the picks of one call from catalogs that turn out
// behind the database (each followed by a catch-up); then the call answers
// without a catalog.
const catalogAttempts = 3

// nextCatalog returns the catalog to pick from again after cat turned out
// behind the database: cat caught up, or nil when there is none newer (a
// full load is due, or the pick failed for another reason).
func (s *Neo4jStore) nextCatalog(ctx context.Context, project string, cat *catalog) *catalog {
	next := s.advanceCatalog(ctx, project, cat)
	if next == cat {
		return nil
	}
	return next
}

// readPicked reads the notes with ids (only what a view shows, with head)
// and the change counter in one statement. ok is false when the counter
// is not cat's: the caller must catch up (nextCatalog) or answer another
// way.
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
		return nil, false, nil
	}
	return out, true, nil
}
