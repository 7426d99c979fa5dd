package memstore

import (
	"context"
	"fmt"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// NoteTexts calls fn with the ID, content hash, title and content of each
// note of ids the project holds, in the order of ids (semantic.TextStore):
// what an embedding pass reads of a note, without building the whole note
// as GetNotes does (its record's links and tags, the frontmatter decoded
// from JSON, the content copied into a string). Those copies were most of
// what a first embedding allocated (~1 GB at 100k notes). content is a
// window into the store's file, valid only during fn, which must not call
// the store; id, hash and title stay valid.
func (s *Store) NoteTexts(ctx context.Context, project string, ids []string, fn func(id, hash, title string, content []byte)) error {
	g, unlock, err := s.reader(ctx, "note texts", project)
	defer unlock()
	if err != nil || g == nil {
		return err
	}
	err = s.kv.View(func(tx *kv.Tx) error {
		body := tx.Lookup(bodiesBucket(project))
		for _, id := range ids {
			nd := g.notes[id]
			if nd == nil {
				continue
			}
			var content []byte
			if rec := body(nd.ID); rec != nil {
				var err error
				if content, err = bodyContent(nd.ID, rec); err != nil {
					return err
				}
			}
			fn(nd.ID, nd.Hash, nd.Title, content)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("memstore: note texts: %w", core.NewProviderError("read state", fmt.Errorf("notes: %w", err)))
	}
	return nil
}

// bodyContent is the content of a body record (decodeBody's), as a window
// into rec.
func bodyContent(id string, rec []byte) ([]byte, error) {
	r := recordReader{b: rec}
	if v := r.byte(); v != recordVersion {
		return nil, fmt.Errorf("body of %s: record version %d: %w", id, v, errBadRecord)
	}
	content := r.bytes()
	r.bytes() // the frontmatter: read so that a truncated record fails as in decodeBody
	if r.err != nil {
		return nil, fmt.Errorf("body of %s: %w", id, r.err)
	}
	return content, nil
}
