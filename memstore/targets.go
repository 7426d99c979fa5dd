package memstore

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"

	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// The link targets table spares a restart the lookup of every link's
// target. The note records name each link's target by its ID, and the
// graph build found every target through the map of IDs (~700k lookups at
// 100k notes: each a few cache misses, in the map and in the target's
// node and ID, about a third of the build; docs/BENCHMARKS.md, "Warm
// restart, session 2026-11-26 13:33 (h33)"). When the store is stamped
// (StampStates: the end of a sync, the end of a session) it also writes,
// in one value per project, where each link's target stands in the ID
// order of the notes; the next load takes each target as the node at
// that position without reading it.
//
// The table is used only where it is proven to fit the records read: it
// holds a hash of the list of note IDs it was made for and, per note, a
// hash of the targets its links name with their positions (xxhash, 64
// bits). A load uses a note's positions only when the IDs it read hash as
// the table's (so position i is the note it was then) and the targets its
// record names, with the positions the table gives them, hash as the
// table's for that note (so each position is the one found for the note
// its link names). Anything else — no table, another version, another list of
// notes (a note written or deleted after the stamp, by this process or
// another, or a process killed before its next stamp), a note whose links
// changed, a damaged value — falls back to the map, per note or for all.
//
//	link-targets  project -> version byte, uvarint note count, the IDs'
//	              hash (8 bytes), then for every note in ID order: uvarint
//	              link count and, when it has links, the hash of their
//	              targets (8 bytes) and for each link uvarint 0 (no target)
//	              or the target's position + 1
const (
	targetsBucket  = "link-targets"
	targetsVersion = 1
)

// idHasher hashes a list of note IDs in order (targetTable, build). The
// bytes are gathered in a buffer and written to the digest a block at a
// time: the hash is the digest of them all, as if each were written on
// its own, but a Write for every ID, length and position (three a link)
// was ~0.1 CPU-s of a 100k restart's build.
type idHasher struct {
	d   *xxhash.Digest
	buf []byte
}

// hashBlock is how many bytes idHasher gathers before it writes them.
const hashBlock = 4096

func newIDHasher() idHasher { return idHasher{d: xxhash.New(), buf: make([]byte, 0, 2*hashBlock)} }

// add hashes the next ID (or target; "" for a link without one),
// length first, so the list is read back unambiguously.
func (h *idHasher) add(id string) {
	h.buf = binary.AppendUvarint(h.buf, uint64(len(id)))
	h.buf = append(h.buf, id...)
	h.flush(hashBlock)
}

// link hashes a link's target ID ("" for none) and the position the
// table gives it (-1 for none).
func (h *idHasher) link(id string, pos int32) {
	h.add(id)
	h.buf = binary.AppendVarint(h.buf, int64(pos))
}

// flush writes what is gathered to the digest once it is at least min
// bytes.
func (h *idHasher) flush(min int) {
	if len(h.buf) >= min {
		_, _ = h.d.Write(h.buf)
		h.buf = h.buf[:0]
	}
}

func (h *idHasher) sum() uint64 {
	h.flush(0)
	return h.d.Sum64()
}

// reset starts a new list.
func (h *idHasher) reset() {
	h.d.Reset()
	h.buf = h.buf[:0]
}

// linked reports whether a note of g has a link (a table is worth
// writing). The caller holds g.mu.
func (g *graph) linked() bool {
	for _, nd := range g.all {
		if len(nd.links) > 0 {
			return true
		}
	}
	return false
}

// targetTable encodes the table of g's links (see above). The caller
// holds g.mu.
func (g *graph) targetTable() []byte {
	links := 0
	pos := make([]int32, len(g.slotNodes)) // by slot
	ids := newIDHasher()
	for i, nd := range g.all {
		pos[nd.slot] = int32(i)
		links += len(nd.links)
		ids.add(nd.ID)
	}
	b := make([]byte, 0, 32+9*len(g.all)+3*links) // positions < 2M: 3 bytes
	b = append(b, targetsVersion)
	b = binary.AppendUvarint(b, uint64(len(g.all)))
	b = binary.LittleEndian.AppendUint64(b, ids.sum())
	h := newIDHasher()
	for _, nd := range g.all {
		b = binary.AppendUvarint(b, uint64(len(nd.links)))
		if len(nd.links) == 0 {
			continue
		}
		h.reset()
		for _, l := range nd.links {
			id, p := "", int32(-1)
			if t := l.target; t != nil {
				id = t.ID
				if int(t.slot) < len(pos) && g.slotNodes[t.slot] == t {
					p = pos[t.slot]
				}
			}
			h.link(id, p)
		}
		b = binary.LittleEndian.AppendUint64(b, h.sum())
		for _, l := range nd.links {
			v := uint64(0)
			if t := l.target; t != nil && int(t.slot) < len(pos) && g.slotNodes[t.slot] == t {
				v = uint64(pos[t.slot]) + 1
			}
			b = binary.AppendUvarint(b, v)
		}
	}
	return b
}

// putTargetTable writes a project's table.
func putTargetTable(tx *kv.Tx, project string, table []byte) error {
	return tx.PutRaw(targetsBucket, project, table)
}

// targetHints reads a table (see above) in step with a load's records;
// the zero value (no table, or one that does not fit) hints nothing.
type targetHints struct {
	b    []byte
	pos  []int32 // the current note's positions, when proven (-1: none)
	next int     // in pos
	h    idHasher
}

// newTargetHints returns the hints of table for the notes of a load,
// whose IDs hash to ids, or none when the table is missing or of another
// version or list of notes.
func newTargetHints(table []byte, notes int, ids uint64) targetHints {
	if len(table) == 0 || table[0] != targetsVersion {
		return targetHints{}
	}
	n, k := binary.Uvarint(table[1:])
	if k <= 0 || n != uint64(notes) || len(table) < 1+k+8 || binary.LittleEndian.Uint64(table[1+k:]) != ids {
		return targetHints{}
	}
	return targetHints{b: table[1+k+8:], h: newIDHasher()}
}

// note starts the next note, whose record holds links links, which r
// (a copy, at the first link) reads: the table's positions are taken
// (position) only when its link count, and its hash of the note's targets
// with their positions, are the record's targets with the positions read.
func (h *targetHints) note(links int, r recordReader) {
	h.pos, h.next = h.pos[:0], 0
	if h.b == nil {
		return
	}
	c, k := binary.Uvarint(h.b)
	if k <= 0 || (c > 0 && len(h.b) < k+8) {
		h.b = nil // damaged: no more hints
		return
	}
	h.b = h.b[k:]
	if c == 0 {
		return
	}
	sum := binary.LittleEndian.Uint64(h.b)
	h.b = h.b[8:]
	for range c {
		v, k := binary.Uvarint(h.b)
		if k <= 0 {
			h.b, h.pos = nil, h.pos[:0]
			return
		}
		h.b = h.b[k:]
		h.pos = append(h.pos, int32(min(v, 1<<30))-1)
	}
	if c != uint64(links) {
		h.pos = h.pos[:0]
		return
	}
	h.h.reset()
	for _, p := range h.pos {
		r.bytes() // raw
		r.bytes() // key
		h.h.link(unsafeString(r.bytes()), p)
		r.bytes() // alias
		r.bytes() // heading
		r.byte()  // embed
	}
	if r.err != nil || h.h.sum() != sum {
		h.pos = h.pos[:0]
	}
}

// position returns the position the table gives the current note's next
// link's target: -1 for none, or when the note's positions are not
// proven (see note).
func (h *targetHints) position() int {
	if h.next >= len(h.pos) {
		return -1
	}
	h.next++
	return int(h.pos[h.next-1])
}
