package vault

import (
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// entry is what the mirror remembers of one note file: enough to resolve
// links and to know what a change affects, but not the content, which is
// read from the file again when a note must be rewritten.
//
// What can be computed from path and lower is not kept: its folder
// (dir), its keys (keys) and the first of them (stem). A 100k-note index
// spent 18 MB on them (docs/BENCHMARKS.md, "Serve memory, session
// 2026-11-26 07:17").
type entry struct {
	path  string // vault-relative, as on disk
	lower string // groupKey(path): its collision group
	id    string // "" until its collision group is assigned
	hash  string
	size  int64
	mtime time.Time
	racy  bool      // read within racyWindow of mtime: a rescan reads it again
	ino   uint64    // the file's inode number when read (0: restored, unknown)
	links []linkRef // one per link of the note, in order
	// texts are the links' targets as written and kinds (for warnings
	// and renames), by link, when the index keeps them: a note it read
	// and parsed. nil for a restored note, whose texts are read back when
	// asked (Mirror.writtenTexts): a restart takes 690k links from the
	// store and asks for a few, and keeping their raw texts cost 20 MB.
	texts []linkText
}

// linkRef is one link of an entry and what it resolves to now. Its
// target as written and its kind (wikilink or markdown link) are not kept
// here (see entry.texts): 32 bytes a link, not 56.
type linkRef struct {
	key    string
	target string // ID it resolves to; "" when unresolved
}

// index is the in-memory picture of the vault: notes by path and ID,
// case-collision groups, the notes answering to each link key (best
// first), and the notes holding a link on each key. It is not safe for
// concurrent use; the Mirror guards it.
type index struct {
	byPath map[string]*entry
	byID   map[string]*entry
	// cands maps the last of a note's keys (its file name, lowercased,
	// without extension) to the notes having it, in resolution order; the
	// notes answering to a longer key are those of its last key's list
	// that have it too (candidates). One entry per note, not one per key:
	// a 100k-note vault four folders deep has 470k keys (40 MB of map).
	// A collision group's notes (paths differing only by case) share
	// their file name: they are found here too (group), not in a map of
	// their own (6 MB at 100k notes, almost every group a single note).
	cands map[string][]*entry
	// linkers: the notes holding a link on each key (linkers.go).
	linkers linkers
}

func newIndex() *index { return newIndexFor(0) }

// newIndexFor returns an empty index sized for about n notes: a restart
// knows how many the store holds, and maps grown one split at a time cost
// it a tenth of its time. Most notes have a file name of their own; the
// linkers of a restart are built at once (linkers.build).
func newIndexFor(n int) *index {
	return &index{
		byPath:  make(map[string]*entry, n),
		byID:    make(map[string]*entry, n),
		cands:   make(map[string][]*entry, n),
		linkers: newLinkers(0),
	}
}

// better reports whether a wins over b for a key both answer to. A note
// whose path without extension equals the key wins (it is the shortest
// possible path); otherwise the shorter path, then the lowercased path in
// byte order. Paths differing only by case put the all-lowercase one
// first, then byte order, so the twin holding the lowercase ID wins.
func better(a, b *entry) bool {
	if len(a.lower) != len(b.lower) {
		return len(a.lower) < len(b.lower)
	}
	if a.lower != b.lower {
		return a.lower < b.lower
	}
	if (a.path == a.lower) != (b.path == b.lower) {
		return a.path == a.lower
	}
	return a.path < b.path
}

// newEntry makes the entry of a note file at path. Its keys (and its ID,
// see regroup) are windows into one lowercased copy of path, its
// collision group's key.
func newEntry(path string) *entry {
	return &entry{path: path, lower: groupKey(path)}
}

// newStoredEntry is newEntry for a note the store holds under id: the
// ID of a note alone in its collision group is its group key, which
// the entry then shares with the store instead of lowercasing a copy of
// its path (100k allocations and 5 MB at a restart). Only an ASCII
// path is compared so (NFC leaves ASCII as it is).
func newStoredEntry(path, id string) *entry {
	if len(id) != len(path) {
		return newEntry(path)
	}
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c >= utf8.RuneSelf {
			return newEntry(path)
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != id[i] {
			return newEntry(path)
		}
	}
	return &entry{path: path, lower: id}
}

// dir is the folder of e's path, "" at the root.
func (e *entry) dir() string { return dirOf(e.path) }

// stem is NoteKeys(path)[0]: the key a link naming e's whole path has.
func (e *entry) stem() string { return stripExt(e.lower) }

// keys returns NoteKeys(path), windows into e.lower; it allocates the
// list, so the hot paths use stem and lastKey instead.
func (e *entry) keys() []string { return keysOfGroup(e.lower) }

// lastKey is the last of e's keys, its file name without extension,
// lowercased: where it is listed in index.cands.
func (e *entry) lastKey() string { return lastKey(e.stem()) }

// keysOfGroup is NoteKeys of a note path given its collision group key
// (groupKey), as windows into it: a note path's extension is ".md" in
// some case, which lowercasing and NFC leave at the end, so the group key
// without its last three bytes is the lowercased, NFC path without
// extension.
func keysOfGroup(lower string) []string {
	k := stripExt(lower)
	n := 1
	for i := 0; i+1 < len(k); i++ {
		if k[i] == '/' {
			n++
		}
	}
	keys := make([]string, 1, n)
	keys[0] = k
	for i := 0; i+1 < len(k); i++ {
		if k[i] == '/' {
			keys = append(keys, k[i+1:])
		}
	}
	return keys
}

// dirOf returns the folder of a vault-relative path, "" at the root.
func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// add puts a new entry in the index; its ID is set by regroup.
func (x *index) add(e *entry) {
	x.addUnlinked(e)
	x.linkLinks(e)
}

// addUnlinked is add without listing e's links among the linkers: a
// restore lists every note's at once (linkers.build).
func (x *index) addUnlinked(e *entry) {
	x.byPath[e.path] = e
	k := e.lastKey()
	c := x.cands[k]
	i := sort.Search(len(c), func(i int) bool { return better(e, c[i]) })
	c = append(c, nil)
	copy(c[i+1:], c[i:])
	c[i] = e
	x.cands[k] = c
}

// remove takes an entry out of the index; call regroup for its group.
func (x *index) remove(e *entry) {
	delete(x.byPath, e.path)
	if e.id != "" && x.byID[e.id] == e {
		delete(x.byID, e.id)
	}
	k := e.lastKey()
	c := x.cands[k]
	for i := range c {
		if c[i] == e {
			c = append(c[:i], c[i+1:]...)
			break
		}
	}
	if len(c) == 0 {
		delete(x.cands, k)
	} else {
		x.cands[k] = c
	}
	x.unlinkLinks(e)
}

// setLinks replaces the links of e and their texts as written (nil:
// read back when asked, see entry.texts).
func (x *index) setLinks(e *entry, links []linkRef, texts []linkText) {
	x.unlinkLinks(e)
	e.links, e.texts = links, texts
	x.linkLinks(e)
}

func (x *index) linkLinks(e *entry) {
	// Built first: a pending build would list e by the links it has
	// now, and then again (linkers.buildLater).
	x.linkers.settle()
	eachKey(e.links, func(key string) { x.linkers.add(key, e) })
}

func (x *index) unlinkLinks(e *entry) {
	x.linkers.settle() // before e's links change (setLinks), even if it has none
	eachKey(e.links, func(key string) { x.linkers.remove(key, e) })
}

// eachKey calls fn with each distinct key of links once.
func eachKey(links []linkRef, fn func(key string)) { eachKeyWith(nil, links, fn) }

// eachKeyWith is eachKey with seen as the set of keys seen when links are
// many (emptied first; nil: a set of its own). A caller going through
// every note reuses one set: a set per note of many links was ~36 MB of
// garbage in a 100k-note restart, made at its end (linkers.build), when
// the heap is largest.
func eachKeyWith(seen map[string]struct{}, links []linkRef, fn func(key string)) {
	if len(links) > smallLinks {
		if seen == nil {
			seen = make(map[string]struct{}, len(links))
		} else {
			clear(seen)
		}
		for i := range links {
			if _, dup := seen[links[i].key]; !dup {
				key := links[i].key
				seen[key] = struct{}{}
				fn(key)
			}
		}
		return
	}
	// Keys only, read in place (never a whole linkRef): Mirror.settleLinkers
	// walks the links while a writer may set a target.
next:
	for i := range links {
		key := links[i].key
		for j := range i {
			if links[j].key == key {
				continue next
			}
		}
		fn(key)
	}
}

// smallLinks: up to this many links, a scan of the keys seen so far finds
// a repeated key faster than a set.
const smallLinks = 32

// idChange is an entry whose ID regroup changed; old is "" for a new entry.
type idChange struct {
	e   *entry
	old string
}

// group returns the entries of the collision group g (a lowercased
// path, see groupKey), in resolution order, or nil. They share their
// file name, so they are among its candidates (index.cands). The result
// may be the index's own list: the caller must not change it.
func (x *index) group(g string) []*entry {
	c := x.cands[lastKey(stripExt(g))]
	n := 0
	for _, e := range c {
		if e.lower == g {
			n++
		}
	}
	if n == len(c) {
		return c
	}
	out := make([]*entry, 0, n)
	for _, e := range c {
		if e.lower == g {
			out = append(out, e)
		}
	}
	return out
}

// groupSize is len(group(g)), without a list.
func (x *index) groupSize(g string) int {
	n := 0
	for _, e := range x.cands[lastKey(stripExt(g))] {
		if e.lower == g {
			n++
		}
	}
	return n
}

// groupPaths returns the paths of the collision group g (see group).
func (x *index) groupPaths(g string) []string {
	members := x.group(g)
	paths := make([]string, len(members))
	for i, e := range members {
		paths[i] = e.path
	}
	return paths
}

// regroup assigns the IDs of the collision group of lowercased path g
// (see assignIDs) and returns the entries whose ID changed.
func (x *index) regroup(g string) []idChange {
	members := x.group(g)
	if len(members) == 1 { // almost every group: its one note has the group key as ID
		e := members[0]
		if e.id == e.lower {
			return nil
		}
		old := e.id
		if old != "" && x.byID[old] == e {
			delete(x.byID, old)
		}
		e.id = e.lower
		x.byID[e.id] = e
		return []idChange{{e: e, old: old}}
	}
	ids := assignIDs(x.groupPaths(g))
	var changed []idChange
	for _, e := range members {
		if e.id != ids[e.path] {
			changed = append(changed, idChange{e: e, old: e.id})
		}
	}
	for _, c := range changed {
		if c.old != "" && x.byID[c.old] == c.e {
			delete(x.byID, c.old)
		}
	}
	for _, c := range changed {
		c.e.id = ids[c.e.path]
		x.byID[c.e.id] = c.e
	}
	return changed
}

// resolve returns the ID of the note a link on key written in a note of
// folder dir resolves to, or "" (see pick).
func (x *index) resolve(key, dir string) string {
	if e := pick(x.candidates(key), key, dir); e != nil {
		return e.id
	}
	return ""
}

// resolveEntry is resolve returning the note's entry, nil when none.
func (x *index) resolveEntry(key, dir string) *entry { return pick(x.candidates(key), key, dir) }

// candidates returns the notes answering to link key, in resolution
// order: those of its last key's list (see index.cands) that have key
// among their keys. It allocates only when that list mixes notes that do
// with notes that do not.
func (x *index) candidates(key string) []*entry {
	c := x.cands[lastKey(key)]
	if !strings.Contains(key, "/") {
		return c // every note of the list has its file name as a key
	}
	n := 0
	for _, e := range c {
		if hasKey(e, key) {
			n++
		}
	}
	if n == len(c) {
		return c
	}
	out := make([]*entry, 0, n)
	for _, e := range c {
		if hasKey(e, key) {
			out = append(out, e)
		}
	}
	return out
}

// lastKey is the last of the keys NoteKeys gives a path whose first key
// is k: what follows its last "/" (k itself without one, or when nothing
// follows it).
func lastKey(k string) string {
	if i := strings.LastIndexByte(k, '/'); i >= 0 && i+1 < len(k) {
		return k[i+1:]
	}
	return k
}

// hasKey reports whether key is one of e's keys: its stem, or a suffix of
// it that follows a "/".
func hasKey(e *entry, key string) bool {
	s := e.stem()
	return s == key || len(s) > len(key) && s[len(s)-len(key)-1] == '/' && s[len(s)-len(key):] == key
}

// keyWindow returns key as a window into e's strings when it is one of
// e's keys (see hasKey), without building the list of keys.
func (e *entry) keyWindow(key string) (string, bool) {
	if !hasKey(e, key) {
		return "", false
	}
	s := e.stem()
	return s[len(s)-len(key):], true
}

// pick applies Obsidian's rules to the notes answering to a link's key,
// in resolution order (see better), for a link written in folder dir: the
// note whose path is the key wins; otherwise the first one in the linking
// note's own folder (an ancestor folder counts for nothing); otherwise
// the first, which has the shortest path.
func pick(cands []*entry, key, dir string) *entry {
	if len(cands) == 0 {
		return nil
	}
	if len(cands) == 1 || cands[0].stem() == key {
		return cands[0]
	}
	for _, e := range cands {
		if e.dir() == dir {
			return e
		}
	}
	return cands[0]
}

// resolveLinks sets the targets of e's links and reports the links that
// were resolved before and are not any more, by their number.
func (x *index) resolveLinks(e *entry) (changed bool, broken []int) {
	dir := e.dir()
	for i := range e.links {
		l := &e.links[i]
		t := x.resolve(l.key, dir)
		if t == l.target {
			continue
		}
		if t == "" {
			broken = append(broken, i)
		}
		l.target = t
		changed = true
	}
	return changed, broken
}

// linkRefs makes the index's view of a parsed note's links, unresolved,
// and their targets as written.
func linkRefs(p *parsedNote) ([]linkRef, []linkText) {
	if len(p.spans) == 0 {
		return nil, nil
	}
	refs := make([]linkRef, len(p.spans))
	texts := make([]linkText, len(p.spans))
	for i, s := range p.spans {
		refs[i] = linkRef{key: s.link.Key}
		texts[i] = linkText{markdown: s.markdown, card: s.card, written: s.written}
	}
	return refs, texts
}

// setStat records what a read of the entry's file found.
func (e *entry) setStat(st fileStat) {
	e.size, e.mtime, e.racy, e.ino = st.size, st.mtime, st.racy, st.ino
}

// unchanged reports whether a file a walk found is the one last read for
// the entry, unchanged: the same size, mtime and (when both are known)
// inode, and not read too soon after a change to tell (racy).
func (e *entry) unchanged(f fileStat) bool {
	return !e.racy && e.size == f.size && e.mtime.Equal(f.mtime) && (e.ino == 0 || f.ino == 0 || e.ino == f.ino)
}
