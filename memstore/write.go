package memstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// UpsertNotes creates or replaces notes with their tags and links, all or
// nothing (see core.GraphWriter). Input is validated before anything
// changes, and nothing after validation can fail. When the batch holds one
// ID twice, the later note wins. Keys are used for resolution and then
// dropped: they are not returned.
func (s *Store) UpsertNotes(ctx context.Context, project string, notes []core.Note) error {
	batch, err := s.prepareUpsert(ctx, project, notes)
	if err != nil || len(batch) == 0 {
		return err
	}
	analyses := analyzeNotes(batch) // before the lock, on every CPU
	g, err := s.lockForWrite(project)
	if err != nil {
		return fmt.Errorf("memstore: upsert notes: %w", err)
	}
	defer g.mu.Unlock()
	written, retargeted := g.upsert(batch, analyses, nil, s.records(project))
	if err := s.persist(project, g, written, batch, retargeted, nil, len(written)); err != nil {
		return fmt.Errorf("memstore: upsert notes: %w", err)
	}
	return nil
}

// UpsertNotesStaged implements core.StagedWriter, which the vault mirror
// uses for a write larger than one batch. The embedded store has nothing
// to stage: this is one UpsertNotes, all or nothing, except that the
// notes' keyword analysis runs on the other CPUs while the write goes
// through the notes, a few hundred notes ahead of it, instead of each
// batch's analysis first and then its write. progress hears of the notes
// as the write goes through them.
func (s *Store) UpsertNotesStaged(ctx context.Context, project string, notes []core.Note, progress func(notes int)) error {
	batch, err := s.prepareUpsert(ctx, project, notes)
	if err != nil {
		return err
	}
	distinct := len(batch)
	if len(batch) > 0 {
		ahead := analyzeAhead(batch)
		defer ahead.stop()
		g, err := s.lockForWrite(project)
		if err != nil {
			return fmt.Errorf("memstore: upsert notes: %w", err)
		}
		defer g.mu.Unlock()
		written, retargeted := g.upsert(batch, ahead.terms, func(done int) {
			ahead.passed(done)
		}, s.records(project))
		// Several transactions of stagedChunk notes: one of 100k notes kept
		// every page it wrote in memory until its commit. The notes' text
		// goes to disk, then lives there only: persist lets go of each
		// chunk's notes once they are committed.
		if err := s.persist(project, g, written, batch, retargeted, progress, stagedChunk); err != nil {
			return fmt.Errorf("memstore: upsert notes: %w", err)
		}
	}
	if progress != nil && len(notes) > distinct { // the repeated IDs, so the counts add up
		progress(len(notes) - distinct)
	}
	return nil
}

// prepareUpsert validates notes and returns the batch to write, each ID
// once (the later note wins), as copies that share nothing mutable with
// notes.
func (s *Store) prepareUpsert(ctx context.Context, project string, notes []core.Note) ([]core.Note, error) {
	if err := s.check(ctx); err != nil {
		return nil, fmt.Errorf("memstore: upsert notes: %w", err)
	}
	if len(notes) == 0 {
		return nil, nil
	}
	last := make(map[string]int, len(notes))
	for i, n := range notes {
		if n.ID == "" {
			return nil, fmt.Errorf("memstore: upsert notes: %w", core.InvalidArgument("note %d of the batch has an empty id", i))
		}
		last[n.ID] = i
	}
	batch := make([]core.Note, 0, len(last))
	for i, n := range notes {
		if last[n.ID] == i {
			c := cloneNote(n)
			c.Project = project
			batch = append(batch, c)
		}
	}
	return batch, nil
}

// lockForWrite returns the project's graph (created if needed) locked for
// writing, never one the store has forgotten (see Store.forget).
func (s *Store) lockForWrite(project string) (*graph, error) {
	for {
		g, err := s.graphForWrite(project)
		if err != nil {
			return nil, err
		}
		g.mu.Lock()
		if !g.dropped {
			if err := s.ensureTerms(project, g); err != nil { // a write may number terms
				g.mu.Unlock()
				return nil, core.NewProviderError("read state", err)
			}
			return g, nil
		}
		g.mu.Unlock()
	}
}

// upsert writes a validated, de-duplicated batch of notes it owns into
// memory; analyses(i) gives the keyword analysis of batch[i]. passed, when
// not nil, hears how many more notes have been stored, every progressStep
// notes and at the end. It returns the nodes written (in batch order) and
// the other nodes whose links' targets changed: what Store.persist must
// write. A node's kind (a note, an attachment, a canvas) is its ID's
// (core.KindOf): every step takes them alike.
//
// Its steps, in order: store the notes (storeNodes), link them (linkNodes),
// resolve the links written earlier that wait for a note of the batch by
// its ID (resolveArrivals), then those that wait for one by a key it
// claims (claimKeys).
func (g *graph) upsert(batch []core.Note, analyses noteTerms, passed func(notes int), records recordView) (written []*node, retargeted map[*node]struct{}) {
	w := newWrite(g)
	written = g.storeNodes(w, batch, analyses, passed)
	g.linkNodes(w, batch, written)
	g.resolveArrivals(w, written, records)
	retargeted = g.claimKeys(w, batch, written)
	w.commit()
	g.pending.sweep(g)
	return written, retargeted
}

// storeNodes stores the notes of batch, detaching what a replaced note
// had, with their entity, keyword analysis and tags; the nodes, in batch
// order.
func (g *graph) storeNodes(w *write, batch []core.Note, analyses noteTerms, passed func(notes int)) []*node {
	written := make([]*node, len(batch))
	for i := range batch {
		n := &batch[i]
		if passed != nil && i > 0 && i%progressStep == 0 {
			passed(progressStep)
		}
		nd := g.notes[n.ID]
		if nd == nil {
			nd = g.newNode()
			setHot(nd, n)
			g.notes[nd.ID] = nd
			w.edges.set(&g.all, nd, true)
		} else {
			w.detach(nd)
			g.unindexEntity(nd, nd.Entity)
			delete(g.notes, n.ID) // so the map keeps no window into the old strings
			setHot(nd, n)
			g.notes[nd.ID] = nd
		}
		nd.gen++
		g.indexEntity(nd)
		terms, counts, length := analyses(i)
		g.search.noteWritten(nd, terms, counts, length)
		for _, t := range nd.normTags() {
			w.tag(t, nd, true)
		}
		written[i] = nd
	}
	if passed != nil {
		passed(len(batch) - (len(batch)-1)/progressStep*progressStep)
	}
	return written
}

// linkNodes links the nodes written: a Target that exists after the
// batch is an edge, any other link is unresolved under its Key, and
// pending on its Target when it has one.
func (g *graph) linkNodes(w *write, batch []core.Note, written []*node) {
	for i, nd := range written {
		setLinks(nd, batch[i].Links, g.notes)
		g.setTargets(nd)
		for j, l := range nd.links {
			if l.target != nil {
				w.edges.set(&nd.out, l.target, true)
				w.edges.set(&l.target.in, nd, true)
			} else {
				g.addUnresolved(l.key, nd)
				if t := batch[i].Links[j].Target; t != "" {
					g.pending.add(t, nd, j)
				}
			}
		}
	}
}

// resolveArrivals resolves the links written earlier with a Target this
// batch writes, as they would have in one batch with it, when their
// records name it (see pendingLinks): nothing to rewrite.
func (g *graph) resolveArrivals(w *write, written []*node, records recordView) {
	var found []pendingLink
	var arrivals []*node
	var doubts []int // indexes in found of entries to check against the record
	for _, nd := range written {
		for _, p := range g.pending.take(nd.ID) {
			if p.valid(g) {
				if g.pending.doubtful(p.linker) {
					doubts = append(doubts, len(found))
				}
				found = append(found, p)
				arrivals = append(arrivals, nd)
			}
		}
	}
	if len(found) == 0 {
		return
	}
	names := make([]bool, len(found))
	for i := range names {
		names[i] = true
	}
	if len(doubts) > 0 {
		// A failed read resolves none of them: the write's commit fails
		// the same way.
		err := records(func(get func(id string) []byte) {
			for _, i := range doubts {
				names[i] = recordNames(get(found[i].linker.ID), int(found[i].link), arrivals[i].ID)
			}
		})
		if err != nil {
			for _, i := range doubts {
				names[i] = false
			}
		}
	}
	arrived := map[*node]struct{}{}
	for i, p := range found {
		if !names[i] {
			continue
		}
		linker, nd := p.linker, arrivals[i]
		l := &linker.links[p.link]
		l.target = nd
		w.edges.set(&linker.out, nd, true)
		w.edges.set(&nd.in, linker, true)
		if !linker.waitsFor(l.key) {
			g.removeUnresolved(l.key, linker)
		}
		arrived[linker] = struct{}{}
	}
	for linker := range arrived {
		g.setTargets(linker)
	}
}

// claimKeys resolves the waiting links to the nodes of the batch claiming
// their keys (the smallest ID wins a key claimed twice) and returns the
// linkers whose records must be rewritten.
func (g *graph) claimKeys(w *write, batch []core.Note, written []*node) map[*node]struct{} {
	retargeted := map[*node]struct{}{}
	claims := map[string]*node{}
	for i, nd := range written {
		for _, k := range batch[i].Keys {
			if cur := claims[k]; cur == nil || nd.ID < cur.ID {
				claims[k] = nd
			}
		}
	}
	for key, target := range claims {
		for linker := range g.unresolved[key] {
			for i := range linker.links {
				if l := &linker.links[i]; l.target == nil && l.key == key {
					l.target = target
				}
			}
			w.edges.set(&linker.out, target, true)
			w.edges.set(&target.in, linker, true)
			retargeted[linker] = struct{}{}
			g.pending.doubt(g, linker)
		}
		delete(g.unresolved, key)
	}
	for linker := range retargeted {
		g.setTargets(linker)
	}
	return retargeted
}

// recordView runs fn with a reader of the project's note records (nil
// for none), in one read transaction.
type recordView func(fn func(get func(id string) []byte)) error

// records is the recordView of the project's note records.
func (s *Store) records(project string) recordView {
	return func(fn func(get func(id string) []byte)) error {
		bucket := notesBucket(project)
		return s.kv.View(func(tx *kv.Tx) error {
			fn(func(id string) []byte { return tx.GetRaw(bucket, id) })
			return nil
		})
	}
}

// recordNames reports whether link number link of the note record rec
// names target.
func recordNames(rec []byte, link int, target string) bool {
	if rec == nil {
		return false
	}
	r := recordReader{b: rec}
	if r.byte() != recordVersion {
		return false
	}
	r.skipToLinks()
	if link >= r.count() {
		return false
	}
	for range link {
		r.bytes() // raw
		r.bytes() // key
		r.bytes() // target
		r.bytes() // alias
		r.bytes() // heading
		r.byte()  // embed
	}
	r.bytes() // raw
	r.bytes() // key
	t := r.bytes()
	return r.err == nil && string(t) == target
}

// pendingLinks finds the unresolved links whose note record names a
// target that was not there when the record was written. The vault's
// first sync writes its notes in batches, and a link to a note of a later
// batch carries the target the vault resolved: it is stored with that
// target and resolves to it when it is written, as it would have in one
// batch, without rewriting the linker's record (a resolution by key claim
// rewrites it: a 100k sync in batches of 2,048 rewrote several records per
// note). So an unresolved link whose record names a target always has an
// entry here: written so, read so from disk (graph.build), or left so by
// the deletion of its target (DeleteNotes). Entries go stale when their
// linker is written again or deleted, or the link resolves by a key
// claim; they are checked when used, against the record too when a claim
// resolved the linker's links (a link resolved by a claim and unresolved
// again by a deletion names another note: see suspects), and swept when
// they outnumber the live ones. Guarded by the graph's lock.
type pendingLinks struct {
	byTarget map[string][]pendingLink // target ID -> links naming it
	n, live  int                      // entries, and those alive at the last sweep
	// suspects are the linkers (at their gen) that a key claim resolved
	// while entries were kept: only theirs can be stale and look valid
	// (resolved by the claim, then unresolved by a deletion), so only
	// theirs are checked against the record. Reading every arriving
	// link's record cost more than the rewrites it saves.
	suspects map[*node]uint32
}

// doubt marks linker as resolved by a key claim. Only a linker with an
// entry of its current write needs to stay a suspect (a stale one looks
// valid again once a deletion unresolves the link): the others go when the
// suspects outnumber the entries.
func (p *pendingLinks) doubt(g *graph, linker *node) {
	if p.n == 0 {
		return // no entry to doubt
	}
	if p.suspects == nil {
		p.suspects = map[*node]uint32{}
	}
	p.suspects[linker] = linker.gen
	if len(p.suspects) <= 2*p.n+4096 {
		return
	}
	keep := map[*node]struct{}{}
	for _, list := range p.byTarget {
		for _, e := range list {
			if nd := e.linker; g.notes[nd.ID] == nd && nd.gen == e.gen {
				keep[nd] = struct{}{}
			}
		}
	}
	for nd := range p.suspects {
		if _, ok := keep[nd]; !ok {
			delete(p.suspects, nd)
		}
	}
}

// doubtful reports whether linker's entries must be checked against its
// record.
func (p *pendingLinks) doubtful(linker *node) bool {
	gen, ok := p.suspects[linker]
	return ok && gen == linker.gen // written since: its entries are new
}

// pendingLink is link number link of linker, as written at its gen.
type pendingLink struct {
	linker *node
	gen    uint32
	link   int32
}

// add records that link number link of linker names target, which is not
// there.
func (p *pendingLinks) add(target string, linker *node, link int) {
	if p.byTarget == nil {
		p.byTarget = map[string][]pendingLink{}
	}
	list, ok := p.byTarget[target]
	if !ok {
		target = strings.Clone(target) // may be a window into a caller's or a deleted note's strings
	}
	p.byTarget[target] = append(list, pendingLink{linker, linker.gen, int32(link)})
	p.n++
}

// take removes and returns the entries naming target.
func (p *pendingLinks) take(target string) []pendingLink {
	out, ok := p.byTarget[target]
	if ok {
		delete(p.byTarget, target)
		p.n -= len(out)
	}
	return out
}

// valid reports whether the entry still stands: its linker is the note g
// has, not written since, and the link is unresolved.
func (e pendingLink) valid(g *graph) bool {
	nd := e.linker
	return g.notes[nd.ID] == nd && nd.gen == e.gen && int(e.link) < len(nd.links) && nd.links[e.link].target == nil
}

// sweep drops the stale entries once there are many more than were alive
// at the last sweep.
func (p *pendingLinks) sweep(g *graph) {
	if p.n == 0 {
		p.suspects = nil
	}
	if p.n <= 2*p.live+4096 {
		return
	}
	for target, list := range p.byTarget {
		kept := list[:0]
		for _, e := range list {
			if e.valid(g) {
				kept = append(kept, e)
			}
		}
		clear(list[len(kept):])
		if len(kept) == 0 {
			delete(p.byTarget, target)
		} else {
			p.byTarget[target] = kept
		}
	}
	p.n = 0
	for _, list := range p.byTarget {
		p.n += len(list)
	}
	p.live = p.n
	for nd, gen := range p.suspects {
		if p.n == 0 || g.notes[nd.ID] != nd || nd.gen != gen {
			delete(p.suspects, nd)
		}
	}
}

// waitsFor reports whether nd has an unresolved link with key.
func (nd *node) waitsFor(key string) bool {
	for _, l := range nd.links {
		if l.target == nil && l.key == key {
			return true
		}
	}
	return false
}

// setHot sets what memory keeps of note n on nd (see node), its strings in
// one new allocation; the links are set by setLinks once every note of
// the batch has its node.
func setHot(nd *node, n *core.Note) {
	size := len(n.ID) + len(n.Title) + len(n.Path) + len(n.Hash)
	for _, t := range n.Tags {
		size += len(t)
	}
	a := newArena(size)
	nd.ID, nd.Title, nd.Path, nd.Hash = a.string(n.ID), a.string(n.Title), a.string(n.Path), a.string(n.Hash)
	nd.Tags = nil
	if len(n.Tags) > 0 {
		nd.Tags = make([]string, len(n.Tags))
		for i, t := range n.Tags {
			nd.Tags[i] = a.string(t)
		}
	}
	nd.Entity = n.Entity
	nd.links = nil
}

// setLinks sets nd's links from the note's: targets looked up in notes (a
// target that is not there is unresolved), keys as windows into their
// targets' IDs where they can be, else in one new allocation.
func setLinks(nd *node, links []core.Link, notes map[string]*node) {
	if len(links) == 0 {
		nd.links = nil
		return
	}
	out := make([]link, len(links))
	rest := 0 // bytes of the keys that cannot be windows
	for i, l := range links {
		var t *node
		if l.Target != "" {
			t = notes[l.Target]
		}
		k, ok := windowKey(l.Key, t)
		if !ok {
			k = l.Key
			rest += len(k)
		}
		out[i] = link{key: k, target: t}
	}
	if rest > 0 {
		a := newArena(rest)
		for i, l := range links {
			if _, ok := windowKey(l.Key, out[i].target); !ok {
				out[i].key = a.string(l.Key)
			}
		}
	}
	nd.links = out
}

// write collects what one write changes in the graph's sorted lists and
// applies it at the end, see changes.
type write struct {
	g        *graph
	edges    *changes            // adjacency lists and g.all
	tags     *changes            // tag lists
	tagNames map[string]struct{} // tags touched, to drop emptied ones
}

// newWrite starts a write of g, whose lock the caller holds for writing.
func newWrite(g *graph) *write {
	g.edgeChanges.reset() // a write given up before its commit left them
	g.tagChanges.reset()
	return &write{g: g, edges: &g.edgeChanges, tags: &g.tagChanges, tagNames: map[string]struct{}{}}
}

func (w *write) tag(name string, nd *node, present bool) {
	ti := w.g.tagIndex(name)
	w.tags.set(&ti.list, nd, present)
	w.tagNames[name] = struct{}{}
}

// detach undoes what nd's current note contributed to edges, tags and the
// unresolved index, keeping the links that point at nd.
func (w *write) detach(nd *node) {
	for _, t := range nd.out {
		w.edges.set(&nd.out, t, false)
		w.edges.set(&t.in, nd, false)
	}
	for _, l := range nd.links {
		if l.target == nil {
			w.g.removeUnresolved(l.key, nd)
		}
	}
	for _, t := range nd.normTags() {
		w.tag(t, nd, false)
	}
}

// commit applies the collected list changes, forgets tags nobody carries
// any more and moves to a new version when the graph's shape changed.
func (w *write) commit() {
	if w.edges.apply() {
		w.g.version++
	}
	w.tags.apply()
	for name := range w.tagNames {
		if ti := w.g.tags[name]; ti != nil && len(ti.list) == 0 {
			delete(w.g.tags, name)
		}
	}
}

// DeleteNotes removes notes and their edges; links of other notes that
// pointed at them become unresolved under their Key. It returns how many
// distinct ids existed.
func (s *Store) DeleteNotes(ctx context.Context, project string, ids []string) (int, error) {
	if err := s.check(ctx); err != nil {
		return 0, fmt.Errorf("memstore: delete notes: %w", err)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	g, err := s.graph(project)
	if err != nil {
		return 0, fmt.Errorf("memstore: delete notes: %w", err)
	}
	if g == nil {
		return 0, nil
	}
	if g, err = s.lockForWrite(project); err != nil {
		return 0, fmt.Errorf("memstore: delete notes: %w", err)
	}
	defer g.mu.Unlock()

	doomed := make(map[*node]bool, len(ids))
	for _, id := range ids {
		if nd := g.notes[id]; nd != nil {
			doomed[nd] = true
		}
	}
	w := newWrite(g)
	var deleted []string
	linkers := map[*node]struct{}{}
	for nd := range doomed {
		for _, linker := range nd.in {
			if doomed[linker] {
				continue
			}
			linkers[linker] = struct{}{}
			for i := range linker.links {
				if l := &linker.links[i]; l.target == nd {
					l.target = nil
					g.addUnresolved(l.key, linker)
					g.pending.add(nd.ID, linker, i) // its record keeps naming nd
				}
			}
			w.edges.set(&linker.out, nd, false)
		}
		for _, t := range nd.out {
			if !doomed[t] {
				w.edges.set(&t.in, nd, false)
			}
		}
		for _, l := range nd.links {
			if l.target == nil {
				g.removeUnresolved(l.key, nd)
			}
		}
		for _, t := range nd.normTags() {
			w.tag(t, nd, false)
		}
		w.edges.set(&g.all, nd, false)
		g.unindexEntity(nd, nd.Entity)
		g.search.noteDeleted(nd)
		delete(g.notes, nd.ID)
		deleted = append(deleted, nd.ID)
		g.freeNode(nd)
	}
	for linker := range linkers {
		g.setTargets(linker)
	}
	w.commit()
	g.pending.sweep(g)
	if err := s.persist(project, g, nil, nil, linkers, nil, len(deleted), deleted...); err != nil {
		return 0, fmt.Errorf("memstore: delete notes: %w", err)
	}
	return len(doomed), nil
}
