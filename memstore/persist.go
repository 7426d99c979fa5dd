package memstore

import (
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// commitFault, set by tests only, fails persist's commits with its error.
var commitFault func() error

// stagedChunk is how many notes one transaction of a staged write holds.
const stagedChunk = 2048

// persist writes what a write changed in memory to disk, in transactions
// of at most chunk written notes: the records and bodies of written (from
// notes, notes[i] being written[i]'s note, its link targets taken from
// memory), the records of retargeted (links whose targets changed) and the
// removal of deleted. The caller holds g.mu for writing, so the disk sees
// the writes in the order memory does. Each chunk's notes are let go of
// (notes[i] zeroed) once committed: their text lives on disk only from
// then on. progress, when not nil, hears of the written notes as their
// transactions commit. When a transaction fails, the project's graph is
// forgotten (memory is ahead of the disk) and reloaded from the disk by
// the next call; the error is a provider error.
func (s *Store) persist(project string, g *graph, written []*node, notes []core.Note, retargeted map[*node]struct{}, progress func(int), chunk int, deleted ...string) error {
	notesB, bodies := notesBucket(project), bodiesBucket(project)
	kwDocs, kwTerms := kwDocsBucket(project), kwTermsBucket(project)
	vectors := vectorBucketPrefix + project
	kw := g.search.keywords
	isWritten := make(map[*node]struct{}, len(written))
	for _, nd := range written {
		isWritten[nd] = struct{}{}
	}
	var others []*node
	for nd := range retargeted {
		if _, ok := isWritten[nd]; !ok {
			others = append(others, nd)
		}
	}
	slices.SortFunc(others, compareNodes)
	chunk = max(chunk, 1)
	// A transaction keeps the values it was given until it commits: every
	// value gets bytes of its own in the arena (see valueArena).
	arena := s.takeArena()
	defer s.putArena(arena, chunk == stagedChunk)
	putRecord := func(tx *kv.Tx, nd *node, n *core.Note) error {
		var err error
		if arena.scratch, err = encodeNote(arena.scratch[:0], n); err != nil {
			return err
		}
		return tx.PutRaw(notesB, nd.ID, arena.keep(arena.scratch))
	}
	putWritten := func(tx *kv.Tx, nd *node, n *core.Note) error {
		for i := range n.Links {
			// An unresolved link keeps the Target it was given: it is
			// pending on it (see pendingLinks).
			if t := nd.links[i].target; t != nil {
				n.Links[i].Target = t.ID
			}
		}
		if err := putRecord(tx, nd, n); err != nil {
			return err
		}
		var err error
		if arena.scratch, err = encodeBody(arena.scratch[:0], n); err != nil {
			return err
		}
		if err := tx.PutRaw(bodies, nd.ID, arena.keep(arena.scratch)); err != nil {
			return err
		}
		if vec, length, ok := kw.vec(nd.ID); ok {
			arena.scratch = binary.AppendUvarint(arena.scratch[:0], uint64(length))
			arena.scratch = append(arena.scratch, vec...)
			return tx.PutRaw(kwDocs, nd.ID, arena.keep(arena.scratch))
		}
		return nil
	}
	// putRetargeted rewrites the record of a note whose links' targets
	// changed: the rest of it is on disk only, and copied as it is.
	putRetargeted := func(tx *kv.Tx, nd *node) error {
		rec := tx.GetRaw(notesB, nd.ID)
		if rec == nil { // never written by this version: from memory
			n, err := nd.storedNote(project, nil)
			if err != nil {
				return err
			}
			return putRecord(tx, nd, &n)
		}
		out, changed, err := retargetRecord(nd, rec)
		if err != nil || !changed {
			return err
		}
		return tx.PutRaw(notesB, nd.ID, out)
	}
	for start := 0; start < len(written) || start == 0; start += chunk {
		end := min(start+chunk, len(written))
		part := written[start:end]
		last := end == len(written)
		arena.reset() // the last chunk's transaction is over
		newTerms := len(kw.names)
		err := s.kv.Update(func(tx *kv.Tx) error {
			if commitFault != nil {
				if err := commitFault(); err != nil {
					return err
				}
			}
			for i := kw.persisted; i < newTerms; i++ {
				if err := tx.PutRaw(kwTerms, termKey(i), []byte(kw.names[i])); err != nil {
					return err
				}
			}
			for i, nd := range part {
				if err := putWritten(tx, nd, &notes[start+i]); err != nil {
					return err
				}
			}
			if !last {
				return nil
			}
			for _, nd := range others {
				if err := putRetargeted(tx, nd); err != nil {
					return err
				}
			}
			for _, id := range deleted {
				if _, err := tx.Delete(notesB, id); err != nil {
					return err
				}
				if _, err := tx.Delete(bodies, id); err != nil {
					return err
				}
				if _, err := tx.Delete(kwDocs, id); err != nil {
					return err
				}
				// Whether or not memory knows of its vector (the
				// vectors may not be loaded yet: LoadSearchOnUse, or
				// serve's background load), a deleted note's record
				// goes in this transaction: left in the file, every
				// later load would hold it, parked, for good.
				if _, err := tx.Delete(vectors, id); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			s.forget(project)
			return core.NewProviderError("write state", err)
		}
		kw.persisted = newTerms
		if kw.readVec == nil {
			kw.readVec = s.termVecReader(project)
		}
		for _, nd := range part {
			kw.stored(nd.ID) // its vector is in kwdocs now: see kwIndex.stored
		}
		clear(notes[start:end])
		if progress != nil && len(part) > 0 {
			progress(len(part))
		}
	}
	return nil
}

// termVecReader returns what a project's keyword index reads a note's
// term vector back with (kwIndex.readVec): its kwdocs record, without the
// length.
func (s *Store) termVecReader(project string) func(id string) ([]byte, error) {
	return func(id string) (vec []byte, err error) {
		err = s.kv.View(func(tx *kv.Tx) error {
			rec := tx.GetRaw(kwDocsBucket(project), id)
			if _, n := binary.Uvarint(rec); n > 0 {
				vec = slices.Clone(rec[n:])
			}
			return nil
		})
		return vec, err
	}
}

// retargetRecord returns nd's note record rec with each resolved link's
// target set to memory's, in a new buffer, and whether any target changed;
// every other byte is copied as it is (an unresolved link keeps the target
// its record names: see pendingLinks) (a staged write of many notes rewrites
// the records of many earlier notes whose links it resolves: decoding and
// encoding each whole note was most of that).
func retargetRecord(nd *node, rec []byte) (out []byte, changed bool, err error) {
	r := recordReader{b: rec}
	if v := r.byte(); v != recordVersion {
		return nil, false, fmt.Errorf("note %s: record version %d: %w", nd.ID, v, errBadRecord)
	}
	r.skipToLinks()
	c := r.count()
	if r.err != nil {
		return nil, false, fmt.Errorf("note %s: %w", nd.ID, r.err)
	}
	if c != len(nd.links) {
		return nil, false, fmt.Errorf("note %s: %d links on disk, %d in memory: %w", nd.ID, c, len(nd.links), errBadRecord)
	}
	size := len(rec)
	for _, l := range nd.links {
		size += len(l.targetID())
	}
	out = make([]byte, 0, size)
	out = append(out, rec[:len(rec)-len(r.b)]...) // up to the links
	for _, l := range nd.links {
		from := r.b
		r.bytes() // raw
		r.bytes() // key
		out = append(out, from[:len(from)-len(r.b)]...)
		old := r.bytes()
		if l.target == nil { // the target it names, if any, is pending
			out = appendString(out, unsafeString(old))
		} else {
			changed = changed || string(old) != l.target.ID
			out = appendString(out, l.target.ID)
		}
		from = r.b
		r.bytes() // alias
		r.bytes() // heading
		r.byte()  // embed
		out = append(out, from[:len(from)-len(r.b)]...)
	}
	from := r.b
	r.bytes() // the entity
	if r.err != nil {
		return nil, false, fmt.Errorf("note %s: %w", nd.ID, r.err)
	}
	return append(out, from...), changed, nil
}

// targetID is the ID of the note l resolves to, "" while unresolved.
func (l link) targetID() string {
	if l.target == nil {
		return ""
	}
	return l.target.ID
}

// storedNote is nd's note as its record rec says (without content and
// frontmatter), with the link targets memory has. A missing record (never
// written by this version) gives the note from memory alone, its links
// without their raw text.
func (nd *node) storedNote(project string, rec []byte) (core.Note, error) {
	var n core.Note
	if rec != nil {
		var err error
		if n, err = decodeNote(project, nd.ID, rec); err != nil {
			return core.Note{}, err
		}
	} else {
		n = core.Note{Project: project, ID: nd.ID, Title: nd.Title, Path: nd.Path, Hash: nd.Hash, Tags: nd.Tags, Size: -1, Entity: nd.Entity.Clone()}
		n.Links = make([]core.Link, len(nd.links))
	}
	if len(n.Links) != len(nd.links) {
		return core.Note{}, fmt.Errorf("note %s: %d links on disk, %d in memory: %w", nd.ID, len(n.Links), len(nd.links), errBadRecord)
	}
	for i, l := range nd.links {
		n.Links[i].Key, n.Links[i].Target = l.key, l.targetID()
	}
	return n, nil
}

// bodiesOf reads the bodies of nodes in one read transaction (see
// decodeBody for cut and withFrontmatter). The caller holds g.mu.
func (s *Store) bodiesOf(project string, nodes []*node, cut, withFrontmatter bool) ([]body, error) {
	cutFrom := len(nodes)
	if cut {
		cutFrom = 0
	}
	return s.bodiesCutFrom(project, nodes, cutFrom, withFrontmatter)
}

// bodiesCutFrom is bodiesOf with the contents of nodes[cutFrom:] cut to
// their head and the others whole.
func (s *Store) bodiesCutFrom(project string, nodes []*node, cutFrom int, withFrontmatter bool) ([]body, error) {
	out := make([]body, len(nodes))
	if len(nodes) == 0 {
		return out, nil
	}
	err := s.kv.View(func(tx *kv.Tx) error {
		get := tx.Lookup(bodiesBucket(project))
		// A head without its frontmatter needs only the record's first
		// bytes: a neighbour of hundreds of kilobytes is not read whole.
		head := get
		if !withFrontmatter && cutFrom < len(nodes) {
			head = tx.LookupPrefix(bodiesBucket(project), bodyHeadBytes)
		}
		for i, nd := range nodes {
			cut := i >= cutFrom
			var rec []byte
			if cut {
				rec = head(nd.ID)
			} else {
				rec = get(nd.ID)
			}
			if rec == nil {
				continue // written before bodies were kept: no text
			}
			var b body
			var err error
			if cut && !withFrontmatter {
				b, err = decodeBodyHead(nd.ID, rec)
			} else {
				b, err = decodeBody(nd.ID, rec, cut, withFrontmatter)
			}
			if err != nil {
				if !cut {
					return err
				}
				// A neighbour or a list entry: the answer is about other
				// notes, which one damaged record should not take away.
				s.warnDamagedBody(project, nd.ID, err)
				continue
			}
			out[i] = b
		}
		return nil
	})
	if err != nil {
		return nil, core.NewProviderError("read state", fmt.Errorf("note bodies: %w", err))
	}
	return out, nil
}

// warnDamagedBody logs, once per note and process, that the body of a
// note shown as a neighbour or a list entry is damaged in the state file:
// it is shown without its text, and reading the note itself fails, until
// the state folder is rebuilt from the vault (the note's body cannot be
// made again from what the store holds, see warnLoad).
func (s *Store) warnDamagedBody(project, id string, err error) {
	if _, logged := s.damagedBodies.LoadOrStore(project+"\x00"+id, true); logged || s.closed.Load() {
		return
	}
	s.logger.Warn("embedded store: a note's text is damaged in the state file; it is shown without it among other notes, and reading it fails",
		"project", project, "note", id, "err", err, "state_folder", s.dir,
		"remedy", rebuildStateRemedy)
}

// fullNotes reads the notes of nodes from disk: records and bodies in
// one read transaction, link targets from memory. The caller holds g.mu.
func (s *Store) fullNotes(project string, nodes []*node) ([]core.Note, error) {
	out := make([]core.Note, len(nodes))
	if len(nodes) == 0 {
		return out, nil
	}
	err := s.kv.View(func(tx *kv.Tx) error {
		record, body := tx.Lookup(notesBucket(project)), tx.Lookup(bodiesBucket(project))
		for i, nd := range nodes {
			n, err := nd.storedNote(project, record(nd.ID))
			if err != nil {
				return err
			}
			if n.Tags == nil {
				n.Tags = []string{}
			}
			if rec := body(nd.ID); rec != nil {
				b, err := decodeBody(nd.ID, rec, false, true)
				if err != nil {
					return err
				}
				n.Content, n.Frontmatter = b.content, b.frontmatter
			}
			n.Entity = n.Entity.Clone()
			out[i] = n
		}
		return nil
	})
	if err != nil {
		return nil, core.NewProviderError("read state", fmt.Errorf("notes: %w", err))
	}
	return out, nil
}

// views shapes nodes as views, their bodies read in one transaction: the
// contents of nodes[cutFrom:] cut to their head (neighbours and list
// entries), the others whole. Their links share one allocation. The
// caller holds g.mu.
func (s *Store) views(project string, nodes []*node, cutFrom int) ([]core.NodeView, error) {
	bodies, err := s.bodiesCutFrom(project, nodes, cutFrom, false)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, nd := range nodes {
		n += len(nd.targets)
	}
	links := make([]core.LinkInfo, n)
	out := make([]core.NodeView, len(nodes))
	for i, nd := range nodes {
		var l []core.LinkInfo
		l, links = nd.viewLinks(links)
		out[i] = core.NodeView{ID: nd.ID, Title: nd.Title, Tags: nd.Tags, Links: l, Content: bodies[i].content}
	}
	return out, nil
}

// termKey is the key of term number n in the kwterms bucket: big-endian,
// so the bucket lists the dictionary in number order.
func termKey(n int) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(n))
	return string(b[:])
}

// spareIdle is how long a staged write's arena is kept for its next call.
const spareIdle = 2 * time.Second

// takeArena returns the arena a staged write left (see putArena), or a new
// one.
func (s *Store) takeArena() *valueArena {
	s.spare.Lock()
	defer s.spare.Unlock()
	s.spare.gen++
	a := s.spare.arena
	s.spare.arena = nil
	if a == nil {
		a = &valueArena{}
	}
	return a
}

// putArena keeps a, whose transactions are over, for the next call when
// staged: a first sync writes its notes in parts of stagedChunk, each
// part a call, and every part's arena (~15 MB of blocks) was garbage the
// next part made again. It is let go of after spareIdle without a write,
// so a process that synced does not hold it while it serves.
func (s *Store) putArena(a *valueArena, staged bool) {
	if !staged {
		return
	}
	a.reset()
	s.spare.Lock()
	s.spare.arena = a
	gen := s.spare.gen
	s.spare.Unlock()
	time.AfterFunc(spareIdle, func() {
		s.spare.Lock()
		defer s.spare.Unlock()
		if s.spare.gen == gen {
			s.spare.arena = nil
		}
	})
}

// valueArena holds the values of one transaction: each value is encoded
// into scratch, reused from value to value, then copied into the current
// block, or into a new one when it does not fit, so no value moves once
// handed to the transaction. Once the transaction is over its blocks are
// used again (reset) for the next one. A single buffer grown by append,
// sized from an estimate, copied every earlier value at each doubling and
// left the old arrays alive until the commit; a first sync allocated
// about twice its records' bytes that way.
type valueArena struct {
	scratch []byte
	blocks  [][]byte // blocks[:cur+1] are in use, blocks[cur] is being filled
	cur     int
}

// valueBlock is the size of an arena block: records are a few KB.
const valueBlock = 256 << 10

// keep returns a copy of v in the arena, its capacity cut to its length.
func (a *valueArena) keep(v []byte) []byte {
	if len(a.blocks) == 0 || cap(a.blocks[a.cur])-len(a.blocks[a.cur]) < len(v) {
		a.next(len(v))
	}
	b := a.blocks[a.cur]
	start := len(b)
	b = append(b, v...)
	a.blocks[a.cur] = b
	return b[start:len(b):len(b)]
}

// next moves to a block with room for n bytes.
func (a *valueArena) next(n int) {
	if len(a.blocks) > 0 {
		a.cur++
	}
	for a.cur < len(a.blocks) && cap(a.blocks[a.cur]) < n {
		a.cur++ // kept for a large value: too small for this one
	}
	if a.cur == len(a.blocks) {
		a.blocks = append(a.blocks, make([]byte, 0, max(valueBlock, n)))
	}
}

// reset empties the arena for the next transaction, keeping its blocks:
// call it only once the transaction holding its values is over.
func (a *valueArena) reset() {
	for i := range a.blocks {
		a.blocks[i] = a.blocks[i][:0]
	}
	a.cur = 0
}
