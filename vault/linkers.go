package vault

import "slices"

// linkers holds the notes that have a link on each key, each note once
// per key, in no order: what a note added, removed or renamed makes the
// index resolve again (applyLocked, planRewrites).
//
// A restart fills it in one pass over every restored note (build): each
// key's notes are a window of one block, found through a map of the
// keys, so a 100k-note vault's 140k keys cost 10 MB, not the 21 MB of a
// slice per key (and their growth). A key whose notes change afterwards
// moves out of the block into a slice of its own (over), as every key
// of an index built note by note has (a cold sync, tests).
//
// A restart does not wait for that pass (~0.25 CPU-s at 100k notes, at
// the end of the restore), nor does a first sync that streams the vault
// (whose lists, built note by note, were ~200k objects the collector
// marked again and again while the sync wrote): it hands the notes over
// (buildLater), and the pass runs at the first use, or before it in the
// background for a live mirror (Mirror.Sync). Until then the notes'
// links are not changed (every change goes through add and remove, which
// build first).
type linkers struct {
	base    map[string]int32 // key → its span in spans
	spans   []span
	block   []*entry
	over    map[string][]*entry
	pending []*entry // notes whose links build lists (buildLater)
	// building is closed when a build of pending outside the mirror's
	// lock (buildOutside) has filled built; settle waits for it and takes
	// built's lists.
	building <-chan struct{}
	built    *linkers
}

// span is a window of linkers.block.
type span struct{ off, n uint32 }

func newLinkers(n int) linkers {
	return linkers{over: make(map[string][]*entry, n)}
}

// of returns the notes having a link on key; the caller must not change
// the list.
func (l *linkers) of(key string) []*entry {
	l.settle()
	if s, ok := l.over[key]; ok {
		return s
	}
	if i, ok := l.base[key]; ok {
		sp := l.spans[i]
		return l.block[sp.off : sp.off+sp.n : sp.off+sp.n]
	}
	return nil
}

// own returns key's list to change, moving it out of the block.
func (l *linkers) own(key string) []*entry {
	l.settle()
	if s, ok := l.over[key]; ok {
		return s
	}
	if i, ok := l.base[key]; ok {
		sp := l.spans[i]
		delete(l.base, key)
		return slices.Clone(l.block[sp.off : sp.off+sp.n])
	}
	return nil
}

func (l *linkers) add(key string, e *entry) {
	l.over[key] = append(l.own(key), e)
}

func (l *linkers) remove(key string, e *entry) {
	s := l.own(key)
	for i := range s {
		if s[i] == e {
			s[i] = s[len(s)-1]
			s[len(s)-1] = nil
			s = s[:len(s)-1]
			break
		}
	}
	if len(s) == 0 {
		delete(l.over, key)
	} else {
		l.over[key] = s
	}
}

// buildLater is build(entries) at the first use of l (settle), for an
// l that is empty and has nothing pending.
func (l *linkers) buildLater(entries []*entry) {
	l.settle()
	l.pending = entries
}

// settle builds what buildLater handed over, if anything (or waits for
// the build that runs outside the lock, and takes it).
func (l *linkers) settle() {
	if l.building != nil {
		<-l.building
		l.base, l.spans, l.block = l.built.base, l.built.spans, l.built.block
		l.building, l.built, l.pending = nil, nil, nil
		return
	}
	if entries := l.pending; entries != nil {
		l.pending = nil
		l.build(entries)
	}
}

// buildOutside starts the build of what buildLater handed over without
// the caller's lock: it returns the build to run (unlocked; it reads the
// pending notes' link keys only, which do not change until settle: every
// change of a note's links settles first) and whose end settle (locked)
// takes, or nil when nothing is pending or a build runs already. A read
// that needs the mirror's lock meanwhile (get_node's unresolved links)
// does not wait for the build, as it did when the build held the lock.
func (l *linkers) buildOutside() func() {
	if l.pending == nil || l.building != nil {
		return nil
	}
	entries, done, built := l.pending, make(chan struct{}), &linkers{}
	l.building, l.built = done, built
	return func() {
		defer close(done)
		built.build(entries)
	}
}

// settled reports whether nothing waits for settle.
func (l *linkers) settled() bool { return l.pending == nil && l.building == nil }

// empty reports whether l lists no note and has none to build: no note of
// the index has links.
func (l *linkers) empty() bool {
	return l.pending == nil && len(l.base) == 0 && len(l.over) == 0
}

// build adds the links of entries, none of which is in l yet, to an
// empty l, in one block: a pass counting each key's notes, then one
// filling the block (the key's number is kept from the first pass, so
// each key of each note costs one map operation).
func (l *linkers) build(entries []*entry) {
	l.settle()
	if len(l.base) > 0 || len(l.over) > 0 {
		for _, e := range entries { // not empty: note by note
			eachKey(e.links, func(key string) { l.add(key, e) })
		}
		return
	}
	l.base = make(map[string]int32, len(entries)*3/2)
	l.spans = l.spans[:0]
	links := 0
	for _, e := range entries {
		links += len(e.links)
	}
	// Each note's distinct keys' numbers, note after note: the fill below
	// walks them instead of the links again.
	numbers := make([]int32, 0, links+len(entries))
	seen := make(map[string]struct{})
	for _, e := range entries {
		eachKeyWith(seen, e.links, func(key string) {
			i, ok := l.base[key]
			if !ok {
				i = int32(len(l.spans))
				l.base[key] = i
				l.spans = append(l.spans, span{})
			}
			l.spans[i].n++
			numbers = append(numbers, i)
		})
		numbers = append(numbers, -1) // the note's end
	}
	off := uint32(0)
	for i := range l.spans {
		l.spans[i].off, off = off, off+l.spans[i].n
		l.spans[i].n = 0 // counts again as the block fills
	}
	l.block = make([]*entry, off)
	j := 0
	for _, e := range entries {
		for ; numbers[j] >= 0; j++ {
			sp := &l.spans[numbers[j]]
			l.block[sp.off+sp.n] = e
			sp.n++
		}
		j++ // past the note's end
	}
	l.spans = slices.Clip(l.spans)
}
