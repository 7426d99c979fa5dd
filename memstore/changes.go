package memstore

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// The change log lives in a bucket per project, one JSON record per change
// under its key (core.ChangeKey: a zero-padded time, so the bucket lists
// the log in time order and a page is a walk back from a key). It is read
// from disk at every call; only the newest change of each note is kept in
// memory, built at the first append, to drop a change equal to it.

const changesBucketPrefix = "changes:"

func changesBucket(project string) string { return changesBucketPrefix + project }

// changeRecord is a change as stored.
type changeRecord struct {
	At         int64  `json:"at"` // nanoseconds since the epoch
	Kind       string `json:"kind"`
	ID         string `json:"id"`
	Path       string `json:"path"`
	OldID      string `json:"old_id,omitempty"`
	OldPath    string `json:"old_path,omitempty"`
	Title      string `json:"title,omitempty"`
	Hash       string `json:"hash,omitempty"`
	SizeBefore int64  `json:"size_before"`
	SizeAfter  int64  `json:"size_after"`
	Actor      string `json:"actor,omitempty"`
	ActorEmail string `json:"actor_email,omitempty"`
	ActorName  string `json:"actor_name,omitempty"`
}

func changeToRecord(c core.NoteChange) changeRecord {
	return changeRecord{At: c.At.UnixNano(), Kind: string(c.Kind), ID: c.ID, Path: c.Path, OldID: c.OldID, OldPath: c.OldPath,
		Title: c.Title, Hash: c.Hash, SizeBefore: c.SizeBefore, SizeAfter: c.SizeAfter,
		Actor: c.Actor.ID, ActorEmail: c.Actor.Email, ActorName: c.Actor.Name}
}

func (r changeRecord) change(key string) core.NoteChange {
	return core.NoteChange{Key: key, At: time.Unix(0, r.At).UTC(), Kind: core.ChangeKind(r.Kind), ID: r.ID, Path: r.Path,
		OldID: r.OldID, OldPath: r.OldPath, Title: r.Title, Hash: r.Hash, SizeBefore: r.SizeBefore, SizeAfter: r.SizeAfter,
		Actor: core.Actor{ID: r.Actor, Email: r.ActorEmail, Name: r.ActorName}}
}

// sameChange reports whether two changes of one note say the same.
func (r changeRecord) sameChange(o changeRecord) bool {
	return r.Kind == o.Kind && r.Path == o.Path && r.OldPath == o.OldPath && r.Hash == o.Hash
}

// changeHead is the newest logged change of a note.
type changeHead struct {
	key string
	rec changeRecord
}

// changeLog is the Store's in-memory part of the change logs.
type changeLog struct {
	mu    sync.Mutex                       // serialises appends and prunes
	heads map[string]map[string]changeHead // project → note ID → newest change; nil: not built
}

// headsLocked returns project's newest change of each note, reading the
// log once. cl.mu must be held.
func (s *Store) headsLocked(project string) (map[string]changeHead, error) {
	if h, ok := s.changes.heads[project]; ok {
		return h, nil
	}
	h := map[string]changeHead{}
	err := s.kv.View(func(tx *kv.Tx) error {
		return tx.ForEach(changesBucket(project), func(key string, value []byte) error {
			var r changeRecord
			if err := json.Unmarshal(value, &r); err != nil {
				return fmt.Errorf("decode change %s: %w", key, err)
			}
			h[r.ID] = changeHead{key, r} // keys come in order: the last one wins
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	if s.changes.heads == nil {
		s.changes.heads = map[string]map[string]changeHead{}
	}
	s.changes.heads[project] = h
	return h, nil
}

// AppendChanges logs changes in one transaction.
func (s *Store) AppendChanges(ctx context.Context, project string, changes []core.NoteChange) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	if len(changes) == 0 {
		return nil
	}
	for _, c := range changes {
		if c.Key == "" {
			return fmt.Errorf("memstore: append changes: %w", core.InvalidArgument("a change of %s has no key", c.Path))
		}
	}
	s.changes.mu.Lock()
	defer s.changes.mu.Unlock()
	heads, err := s.headsLocked(project)
	if err != nil {
		return core.NewProviderError("memstore: read change log", err)
	}
	bucket := changesBucket(project)
	added := map[string]changeHead{}
	err = s.updateOutsideNotes(func(tx *kv.Tx) error {
		for _, c := range changes {
			r := changeToRecord(c)
			head, ok := added[c.ID]
			if !ok {
				head, ok = heads[c.ID]
			}
			if ok && head.rec.sameChange(r) {
				continue
			}
			if tx.GetRaw(bucket, c.Key) != nil {
				continue
			}
			if err := tx.Put(bucket, c.Key, r); err != nil {
				return err
			}
			if !ok || c.Key > head.key {
				added[c.ID] = changeHead{c.Key, r}
			}
		}
		return nil
	})
	if err != nil {
		return core.NewProviderError("memstore: append changes", err)
	}
	for id, h := range added {
		heads[id] = h
	}
	return nil
}

// Changes walks the log back from q.Before.
func (s *Store) Changes(ctx context.Context, project string, q core.ChangeQuery) ([]core.NoteChange, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	if q.Limit <= 0 {
		return nil, fmt.Errorf("memstore: changes: %w", core.InvalidArgument("limit must be positive, got %d", q.Limit))
	}
	var out []core.NoteChange
	err := s.kv.View(func(tx *kv.Tx) error {
		return tx.ForEachBefore(changesBucket(project), q.Before, func(key string, value []byte) error {
			var r changeRecord
			if err := json.Unmarshal(value, &r); err != nil {
				return fmt.Errorf("decode change %s: %w", key, err)
			}
			c := r.change(key)
			if !q.Since.IsZero() && c.At.Before(q.Since) {
				return kv.ErrStop // keys are times: every later one is older
			}
			out = append(out, c)
			if len(out) == q.Limit {
				return kv.ErrStop
			}
			return nil
		})
	})
	if err != nil {
		return nil, core.NewProviderError("memstore: read changes", err)
	}
	return out, nil
}

// LastChange is the note's head, the newest change of each note kept in
// memory (built once from the log, dropped by a prune that deleted any).
func (s *Store) LastChange(ctx context.Context, project, id string) (*core.NoteChange, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	s.changes.mu.Lock()
	defer s.changes.mu.Unlock()
	heads, err := s.headsLocked(project)
	if err != nil {
		return nil, core.NewProviderError("memstore: read change log", err)
	}
	h, ok := heads[id]
	if !ok {
		return nil, nil
	}
	c := h.rec.change(h.key)
	return &c, nil
}

// PruneChanges deletes by age, then beyond keep, in one transaction.
func (s *Store) PruneChanges(ctx context.Context, project string, before time.Time, keep int) (int, error) {
	if err := s.check(ctx); err != nil {
		return 0, err
	}
	s.changes.mu.Lock()
	defer s.changes.mu.Unlock()
	below := fmt.Sprintf("%020d", max(before.UnixNano(), 0))
	bucket := changesBucket(project)
	var doomed []string
	kept := 0
	err := s.kv.View(func(tx *kv.Tx) error {
		return tx.ForEachBefore(bucket, "", func(key string, _ []byte) error {
			if key < below || kept >= keep {
				doomed = append(doomed, key)
			} else {
				kept++
			}
			return nil
		})
	})
	if err == nil && len(doomed) > 0 {
		err = s.updateOutsideNotes(func(tx *kv.Tx) error {
			for _, k := range doomed {
				if _, err := tx.Delete(bucket, k); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err != nil {
		return 0, core.NewProviderError("memstore: prune changes", err)
	}
	if len(doomed) > 0 {
		delete(s.changes.heads, project) // a head may be gone: read again when needed
	}
	return len(doomed), nil
}
