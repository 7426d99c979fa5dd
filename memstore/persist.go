package memstore

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// commitFault, set by tests only, fails persist's commits with its error.
var commitFault func() error

// stagedChunk is how many notes one transaction of a staged write holds.
const stagedChunk = 2048

// persist writes what a write changed in memory to disk, in transactions
// of at most chunk written notes: the records and bodies of written (which
// then give their text up: it is read from disk from now on), the records
// of retargeted (links whose targets changed) and the removal of deleted.
// The caller holds g.mu for writing, so the disk sees the writes in the
// order memory does. progress, when not nil, hears of the written notes
// as their transactions commit. When a transaction fails, the project's
// graph is forgotten (memory is ahead of the disk) and reloaded from the
// disk by the next call; the error is a provider error.
func (s *Store) persist(project string, g *graph, written []*node, retargeted map[*node]struct{}, progress func(int), chunk int, deleted ...string) error {
	notes, bodies := notesBucket(project), bodiesBucket(project)
	kwDocs, kwTerms := kwDocsBucket(project), kwTermsBucket(project)
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
	// A transaction keeps the values it was given until it commits, so
	// every record gets bytes of its own: appended to arena, never over
	// what an earlier record holds (a grown arena leaves those in the old
	// array).
	var arena []byte
	put := func(tx *kv.Tx, nd *node, withBody bool) error {
		start := len(arena)
		var err error
		if arena, err = encodeNote(arena, &nd.note); err != nil {
			return err
		}
		if err := tx.PutRaw(notes, nd.id(), arena[start:len(arena):len(arena)]); err != nil {
			return err
		}
		if !withBody {
			return nil
		}
		start = len(arena)
		if arena, err = encodeBody(arena, &nd.note); err != nil {
			return err
		}
		if err := tx.PutRaw(bodies, nd.id(), arena[start:len(arena):len(arena)]); err != nil {
			return err
		}
		if vec, length, ok := kw.vec(nd.id()); ok {
			start = len(arena)
			arena = binary.AppendUvarint(arena, uint64(length))
			arena = append(arena, vec...)
			return tx.PutRaw(kwDocs, nd.id(), arena[start:len(arena):len(arena)])
		}
		return nil
	}
	for start := 0; start < len(written) || start == 0; start += chunk {
		part := written[start:min(start+chunk, len(written))]
		last := start+chunk >= len(written)
		size := 0 // what the chunk's records take, roughly: one arena, not a doubling series
		for _, nd := range part {
			size += len(nd.note.Content) + len(nd.note.Title) + len(nd.note.Path) + 96*len(nd.note.Links) + 256
		}
		arena = make([]byte, 0, size+64*len(others))
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
			for _, nd := range part {
				if err := put(tx, nd, true); err != nil {
					return err
				}
			}
			if !last {
				return nil
			}
			for _, nd := range others {
				if err := put(tx, nd, false); err != nil {
					return err
				}
			}
			for _, id := range deleted {
				if _, err := tx.Delete(notes, id); err != nil {
					return err
				}
				if _, err := tx.Delete(bodies, id); err != nil {
					return err
				}
				if _, err := tx.Delete(kwDocs, id); err != nil {
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
		for _, nd := range part {
			nd.note.Content, nd.note.Frontmatter = "", nil
		}
		if progress != nil && len(part) > 0 {
			progress(len(part))
		}
	}
	return nil
}

// bodiesOf reads the bodies of nodes in one read transaction (see
// decodeBody for cut and withFrontmatter). The caller holds g.mu.
func (s *Store) bodiesOf(project string, nodes []*node, cut, withFrontmatter bool) ([]body, error) {
	out := make([]body, len(nodes))
	if len(nodes) == 0 {
		return out, nil
	}
	bucket := bodiesBucket(project)
	err := s.kv.View(func(tx *kv.Tx) error {
		for i, nd := range nodes {
			rec := tx.GetRaw(bucket, nd.id())
			if rec == nil {
				continue // written before bodies were kept: no text
			}
			b, err := decodeBody(nd.id(), rec, cut, withFrontmatter)
			if err != nil {
				return err
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

// fullNotes copies the notes of nodes (cloneNodes) with their content and
// frontmatter read from disk. The caller holds g.mu.
func (s *Store) fullNotes(project string, nodes []*node) ([]core.Note, error) {
	bodies, err := s.bodiesOf(project, nodes, false, true)
	if err != nil {
		return nil, err
	}
	notes := cloneNodes(nodes)
	for i := range notes {
		notes[i].Content, notes[i].Frontmatter = bodies[i].content, bodies[i].frontmatter
	}
	return notes, nil
}

// views are what a client is shown of nodes (node.view), their content
// read from disk: cut to a neighbour's share with cut. The caller holds
// g.mu.
func (s *Store) views(project string, nodes []*node, cut bool) ([]core.NodeView, error) {
	bodies, err := s.bodiesOf(project, nodes, cut, false)
	if err != nil {
		return nil, err
	}
	out := make([]core.NodeView, len(nodes))
	for i, nd := range nodes {
		out[i] = nd.view()
		out[i].Content = bodies[i].content
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
